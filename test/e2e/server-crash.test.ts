/**
 * End to end: the managed OpenCode server (real 1.18.33 binary, scripted model) is SIGKILLed
 * mid-turn. The running turn fails at once with the reason and the server's last lines, the
 * server is started again (same dirs, port and password), and the same session's next send
 * completes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Bridge } from "../../src/runtime/bridge.js";
import { SupervisedServer } from "../../src/server/supervised-server.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { untilTurnEvent } from "../support/turn-events.js";

let bridge: Bridge;
let directory: string;
beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ocb-crash-"));
  bridge = await Bridge.start({ directory, modelServer: demoModelServer });
  trackProcess(bridge.server.pid, "opencode serve (crash, first)");
});
afterAll(async () => {
  await bridge?.close();
  rmSync(directory, { recursive: true, force: true });
});

it("fails the running turn when the server dies, restarts it, and the next send completes", async () => {
  const session = await bridge.createSession();
  const turn = await session.send("[[slow 30 200]]", { delivery: "queue" });
  await untilTurnEvent(turn, (event) => event.type === "text.delta");
  const pid = bridge.server.pid;
  if (pid === undefined) throw new Error("no server pid");
  const killedAt = Date.now();
  process.kill(-pid, "SIGKILL");

  const result = await turn.done();
  const failedAfterMs = Date.now() - killedAt;
  expect(result).toMatchObject({ outcome: "failed", reason: "server-exited" });
  expect(result.error?.message).toMatch(/was killed by SIGKILL/);
  expect(result.error?.message).toMatch(/last lines/);
  // The exit itself ends the turn (no watchdog bound is involved): the 2 s.
  expect(failedAfterMs).toBeLessThan(2_000);

  const server = bridge.server;
  expect(server).toBeInstanceOf(SupervisedServer);
  await (server as SupervisedServer).restarted();
  expect(bridge.server.pid).not.toBe(pid);
  trackProcess(bridge.server.pid, "opencode serve (crash, restarted)");

  const next = await session.send("[[reply back again]]", { delivery: "queue" });
  expect(await next.done()).toMatchObject({ outcome: "completed", text: "back again" });
  const ends = (await session.transcript()).filter((event) => event.type === "turn.ended");
  expect(ends.map((event) => event.turnId)).toEqual([turn.id, next.id]);
});
