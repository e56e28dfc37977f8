/**
 * A send's idempotency key across the sidecars of a cluster (a real Postgres, sidecars
 * listening on loopback in this process): a retry through another sidecar is not admitted
 * again, also after the driver died and another took the session over; the same key with
 * another input is a conflict; a retry while the first send is still under way on another
 * sidecar waits, bounded, then is told to try again; a first send that never answered is
 * told as such.
 */
import { describe, expect, it } from "vitest";
import {
  type ClusterSidecar,
  createClusterSession,
  sendTo,
  useClusterSidecars,
} from "../../../test/support/cluster-sidecars.js";
import { ApiError } from "../../sidecar/errors.js";
import { requestFingerprint } from "../../sidecar/idempotency.js";
import { silentLogger } from "../../util/logger.js";
import type { SendInputResult } from "../../wire/http.js";
import { SharedSends } from "./shared-sends.js";

const cluster = useClusterSidecars();

const prompts = (on: ClusterSidecar, id: string) =>
  (on.backends.get(id)?.prompts ?? []).map((prompt) => prompt.text);

describe("idempotency keys across sidecars", () => {
  it("admits a send once whichever sidecar its retries go through, also after a takeover", async () => {
    const url = await cluster.freshDatabase();
    const [a, b, c] = [
      await cluster.sidecar(url, "a", { listen: true }),
      await cluster.sidecar(url, "b", { listen: true }),
      await cluster.sidecar(url, "c", { listen: true }),
    ];
    const id = await createClusterSession(a);
    const key = { idempotencyKey: "key-1" };

    const first = await sendTo(c, id, "once", key);
    expect(first.statusCode, first.body).toBe(202);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    const retried = await sendTo(b, id, "once", key);
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.headers["idempotent-replayed"]).toBe("true");
    expect(retried.json()).toEqual(first.json());
    expect(prompts(a, id)).toEqual(["once"]);

    const reused = await sendTo(b, id, "another input", key);
    expect(reused.statusCode).toBe(409);
    expect(reused.json()).toMatchObject({ error: { code: "conflict" } });

    // A dies; B takes the session over on the retry, and finds the first admission in Postgres.
    await a.app.close();
    await a.cluster.close({ release: false });
    const afterTakeover = await sendTo(b, id, "once", key);
    expect(afterTakeover.statusCode, afterTakeover.body).toBe(202);
    expect(b.ctx.sessions.peek(id)).toBeDefined();
    expect(afterTakeover.headers["idempotent-replayed"]).toBe("true");
    expect(afterTakeover.json()).toEqual(first.json());
    expect(prompts(b, id)).toEqual([]);
  });

  it("makes a retry wait for a first send under way on another sidecar, then tells it to try again", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = [await cluster.sidecar(url, "a"), await cluster.sidecar(url, "b")];
    const id = await createClusterSession(a);
    let admit: (answer: SendInputResult) => void = () => {};
    const firstSend = a.ctx.idempotency.run(
      id,
      "key-1",
      { text: "slow" },
      () => new Promise((resolve) => (admit = resolve)),
    );
    await expect.poll(() => a.cluster.sends.find(id, "key-1", 60_000)).toBeDefined();
    // B drives the session now (A stalled past its lease), while A's send is under way.
    await expect
      .poll(async () => {
        await a.cluster.leases.release(id);
        return await b.ctx.sessions.open(id).then(
          () => true,
          () => false,
        );
      })
      .toBe(true);
    const stopping = new AbortController().signal;
    const options = { ttlMs: 60_000, logger: silentLogger, stopping, pendingWaitMs: 300 };
    const onB = new SharedSends(b.cluster, { ...options, abandonAfterMs: 60_000 });
    const neverRuns = () => Promise.reject(new Error("admitted twice"));

    const waited = await onB.run(id, "key-1", { text: "slow" }, neverRuns).catch((e) => e);
    expect(waited).toBeInstanceOf(ApiError);
    expect(waited).toMatchObject({ code: "unavailable" });
    expect((waited as ApiError).message).toContain("still under way (on sidecar a)");

    const answer = { turnId: "turn_1", inputId: "in_1" };
    admit(answer);
    expect(await firstSend).toEqual({ answer, replayed: false });
    expect(await onB.run(id, "key-1", { text: "slow" }, neverRuns)).toEqual({
      answer,
      replayed: true,
    });

    // A first send that never answered, past its bound: unknown, and said so.
    const claimant = { holder: "a", token: 1 };
    const lost = requestFingerprint({ text: "lost" });
    expect(await a.cluster.sends.claim(id, "key-2", lost, claimant, 60_000)).toBe(true);
    const abandoned = new SharedSends(b.cluster, { ...options, abandonAfterMs: 0 });
    await expect
      .poll(() => abandoned.run(id, "key-2", { text: "lost" }, neverRuns).catch((e) => e))
      .toMatchObject({ code: "conflict", message: expect.stringContaining("unknown") });
  });
});
