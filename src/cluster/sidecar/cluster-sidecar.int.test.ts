/**
 * Two sidecars of one cluster (a real Postgres; sessions on the in-process backend, so no
 * OpenCode: the e2e test test/e2e/sidecar-cluster.test.ts has that): a session is driven by
 * the sidecar that created it, and the other refuses to drive it (a forwarded command gets
 * `not_driver`, naming the driver; forward.int.test.ts has the forwarding) but follows its durable
 * events from the store; a driver whose lease is taken stops
 * driving at once, ending nothing, and says so; an expired lease is taken over.
 */
import { describe, expect, it } from "vitest";
import {
  type ClusterSidecar,
  createClusterSession,
  sendTo,
  useClusterSidecars,
} from "../../../test/support/cluster-sidecars.js";
import {
  LEASE_OF_A_HOLDER_TO_STALL,
  pastTwoHeartbeats,
  stallPastItsLease,
} from "../../../test/support/stalled-holder.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { SessionFeeds } from "../../sidecar/streams/session-feeds.js";
import { SessionInfoSchema } from "../../wire/http.js";
import { RemoteSource } from "./remote-source.js";
import { takeOverExpired } from "./takeover.js";

const cluster = useClusterSidecars();
const { cleanups } = cluster;

/** A sidecar (not listening) in the cluster of `url`, with short leases. */
const sidecarIn = (url: string, holderId: string) => cluster.sidecar(url, holderId);

/** A command as a sidecar forwards it: never forwarded again. */
function forwardedSend(on: ClusterSidecar, id: string, text: string) {
  return on.app.inject({
    method: "POST",
    url: `/v1/sessions/${id}/inputs`,
    headers: on.headers.forwarded,
    payload: { text, delivery: "queue" },
  });
}

/** What a subscriber of `on`'s feed of `id` receives after `after`, until a `turn.ended`. */
async function followUntilTurnEnds(on: ClusterSidecar, id: string, after: number) {
  const source = await on.ctx.sessions.source(id);
  const received: CanonicalEvent[] = [];
  let caughtUp: number | undefined;
  const feeds = new SessionFeeds();
  const ended = new Promise<void>((resolve, reject) => {
    feeds.join(
      source,
      {
        event(event) {
          received.push(event);
          if (event.type === "turn.ended") resolve();
        },
        caughtUp(seq) {
          caughtUp = seq;
        },
        ended: (end) => reject(new Error(`the feed ended: ${end.reason}`)),
      },
      after,
    );
  });
  return {
    source,
    received,
    ended,
    caughtUp: () => caughtUp,
    stop: () => feeds.stopAll({ reason: "session-closed" }),
  };
}

const durableIds = (events: CanonicalEvent[]) =>
  events.filter((event) => event.durable).map((event) => `${event.seq}:${event.id}`);

describe("a sidecar in a cluster", () => {
  it("refuses a forwarded command for a session another sidecar drives: 409 not_driver naming the driver", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = [await sidecarIn(url, "a"), await sidecarIn(url, "b")];
    const id = await createClusterSession(a);
    expect(a.cluster.leases.tokenOf(id)).toBe(1);
    const refused = await forwardedSend(b, id, "hello");
    expect(refused.statusCode).toBe(409);
    const body = refused.json() as { error: { code: string; message: string; details: unknown } };
    expect(body.error.code).toBe("not_driver");
    expect(body.error.message).toContain("sidecar a at http://a.test:1");
    expect(body.error.details).toEqual({ sessionId: id, driver: "a", address: "http://a.test:1" });
    expect((await sendTo(a, id, "hello")).statusCode).toBe(202);
    // Asked about it, B answers what the store says (not open here).
    await expect.poll(() => a.store.lastSeq(id)).toBeGreaterThan(0);
    const info = await b.app.inject({
      method: "GET",
      url: `/v1/sessions/${id}`,
      headers: b.headers.json,
    });
    expect(info.statusCode, info.body).toBe(200);
    expect(SessionInfoSchema.parse(info.json())).toMatchObject({ id, open: false, state: "open" });
    expect(SessionInfoSchema.parse(info.json()).lastSeq).toBeGreaterThan(0);
  });

  it("follows a turn another sidecar drives: its durable events, in order, from any seq", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = [await sidecarIn(url, "a"), await sidecarIn(url, "b")];
    const id = await createClusterSession(a);
    const live = await followUntilTurnEnds(b, id, 0);
    expect(live.source).toBeInstanceOf(RemoteSource);
    expect((await sendTo(a, id, "hello")).statusCode).toBe(202);
    const backend = a.backends.get(id);
    if (backend === undefined) throw new Error("no backend on a");
    backend.step(3);
    backend.end();
    await live.ended;
    live.stop();
    const stored = await a.store.read(id);
    expect(durableIds(live.received)).toEqual(durableIds(stored));
    // Not listening (the addresses lead nowhere), so no delta is relayed: each part's text
    // goes out whole, as one delta made from its end (delta-relay.int.test.ts has the relay).
    const deltas = live.received.filter((event) => !event.durable);
    expect(deltas.map((event) => event.type)).toEqual(["text.delta"]);
    expect(deltas[0]?.data).toMatchObject({ delta: "3 tokens" });
    // A subscriber that resumes mid-way gets the rest, caught up at its seq.
    const resumed = await followUntilTurnEnds(b, id, 2);
    await resumed.ended;
    resumed.stop();
    expect(durableIds(resumed.received)).toEqual(durableIds(stored.slice(2)));
  });

  it("stops driving a session whose lease another took, ends no turn, and says so", async () => {
    const url = await cluster.freshDatabase();
    const a = await cluster.sidecar(url, "a", { lease: LEASE_OF_A_HOLDER_TO_STALL });
    const b = await sidecarIn(url, "b");
    const id = await createClusterSession(a);
    expect((await sendTo(a, id, "hello")).statusCode).toBe(202);
    await expect
      .poll(async () => (await a.store.read(id)).map((e) => e.type))
      .toContain("turn.started");
    // A stalled past its lease and B took the session; A's next heartbeat finds it taken.
    await stallPastItsLease(url, "a", id);
    await pastTwoHeartbeats();
    await b.ctx.sessions.open(id);
    await expect.poll(() => a.ctx.sessions.peek(id), { timeout: 5_000 }).toBeUndefined();
    expect(a.logger.entries).toContainEqual(
      expect.objectContaining({
        level: "warn",
        message: "stopped driving a session: its lease is no longer this sidecar's",
        fields: { sessionId: id, reason: "taken" },
      }),
    );
    // The running turn was left to the new driver: A ended nothing.
    expect((await a.store.read(id)).map((e) => e.type)).not.toContain("turn.ended");
    expect((await forwardedSend(a, id, "again")).statusCode).toBe(409);
  });

  it("takes over a session whose driver let its lease expire", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = [await sidecarIn(url, "a"), await sidecarIn(url, "b")];
    const id = await createClusterSession(a);
    const released = await createClusterSession(a);
    const release = await a.app.inject({
      method: "POST",
      url: `/v1/sessions/${released}/release`,
      headers: a.headers.json,
      payload: {},
    });
    expect(release.statusCode, release.body).toBeLessThan(300);
    const stop = new AbortController();
    const takingOver = takeOverExpired(
      { member: b.cluster, sessions: b.ctx.sessions, store: b.store, logger: b.logger },
      stop.signal,
    );
    cleanups.push(async () => {
      stop.abort();
      await takingOver;
    });
    await a.cluster.close({ release: false }); // A dies: its heartbeat stops
    await expect.poll(() => b.ctx.sessions.peek(id), { timeout: 5_000 }).toBeDefined();
    expect(b.cluster.leases.tokenOf(id)).toBe(2);
    expect(b.logger.entries).toContainEqual(
      expect.objectContaining({ message: "took over a session whose driver let its lease expire" }),
    );
    expect((await sendTo(b, id, "hello")).statusCode).toBe(202);
    expect(b.ctx.sessions.peek(released)).toBeUndefined();
  });
});
