/**
 * End to end: a run stopped by a rejected permission publishes no step end on 1.18's /api.
 * The runtime must still end the turn (interrupted), soon, and take the next input.
 * (Replying to permissions through the runtime is a later issue; the raw client does it here.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";

let bridge: Bridge;
let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ocb-stopped-run-"));
  bridge = await Bridge.start({
    directory,
    modelServer: demoModelServer,
    config: { permission: { edit: "ask" } },
    // Long bounds: the turn must end by the stop check, not by the stall watchdog.
    watchdog: { admitTimeoutMs: 60_000, silenceTimeoutMs: 60_000 },
  });
  trackProcess(bridge.server.pid, "opencode serve (stopped-run e2e)");
});
afterAll(async () => {
  await bridge?.close();
  rmSync(directory, { recursive: true, force: true });
});

it("ends the turn interrupted when a rejected permission stops the run", async () => {
  const session = await bridge.createSession({ title: "reject" });
  const controller = new AbortController();
  const seen: CanonicalEvent[] = [];
  const asked = (async () => {
    for await (const event of session.events({ signal: controller.signal })) {
      seen.push(event);
      if (event.type === "permission.asked") return event.data.requestId;
    }
    return undefined;
  })();
  const turn = await session.send('[[tool write {"path":"hello.txt","content":"hello"}]]', {
    delivery: "queue",
  });
  const requestID = await asked;
  controller.abort();
  expect(requestID).toMatch(/^per/);
  // Without a message: 1.18's /api stops the run, and publishes no step end.
  await session.replyPermission(requestID ?? "", "reject");
  const result = await turn.done();
  expect(result.outcome).toBe("interrupted");
  const next = await session.send("[[reply after]]", { delivery: "queue" });
  expect(await next.done()).toMatchObject({ outcome: "completed", text: "after" });
  const ends = (await session.transcript()).filter((event) => event.type === "turn.ended");
  expect(ends).toHaveLength(2);
  await session.close();
});
