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
import { mintMessageId } from "../../src/backends/serve/message-id.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
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

it("a send right after a SIGKILL completes: its cut prompt is sent again, and admitted once", async () => {
  const session = await bridge.createSession();
  const first = await session.send("[[reply warm]]", { delivery: "queue" });
  await first.done(); // the catalog is known and keep-alive sockets to this server are pooled
  const pid = bridge.server.pid;
  if (pid === undefined) throw new Error("no server pid");
  process.kill(-pid, "SIGKILL");
  // Sent before the death shows: the prompt goes to the dying server and its answer is lost
  // (server-sigkill findings 1 and 2: the send failed with ECONNRESET, or threw while its
  // input had been admitted).
  const turn = await session.send("[[reply after the cut]]", { delivery: "queue" });
  trackProcess(bridge.server.pid, "opencode serve (crash, restarted again)");
  const result = await turn.done();
  // Admitted by the dying server (it then failed with it) or by the restarted one.
  if (result.outcome !== "completed") {
    expect(result).toMatchObject({ outcome: "failed", reason: "server-exited" });
  }
  const transcript = await session.transcript();
  const admissions = transcript.filter(
    (event) => event.type === "input.admitted" && event.turnId === turn.id,
  );
  expect(admissions).toHaveLength(1);
  expect(transcript.filter((event) => event.type === "turn.ended").map((e) => e.turnId)).toEqual([
    first.id,
    turn.id,
  ]);
});

it("OpenCode answers a prompt sent again with its id, after a restart, with its first admission", async () => {
  const session = await bridge.createSession();
  const id = mintMessageId();
  const prompt = { sessionID: session.upstreamId ?? session.id, prompt: { text: "[[reply x]]" } };
  const admitted = await bridge.client.v2.session.prompt({ ...prompt, delivery: "queue", id });
  const pid = bridge.server.pid;
  if (pid === undefined) throw new Error("no server pid");
  const server = bridge.server as SupervisedServer;
  // The crash heard first: until then the killed process (a zombie for a moment) counts as
  // running, no restart is under way, and the prompt would go to the dying server (seen on a
  // clean clone: failed in 139 ms).
  const crashed = new Promise<void>((resolve) => {
    const off = server.onCrash(() => {
      off();
      resolve();
    });
  });
  process.kill(-pid, "SIGKILL");
  await crashed;
  await server.restarted(AbortSignal.timeout(60_000));
  trackProcess(bridge.server.pid, "opencode serve (crash, restarted for the resend)");
  const again = await bridge.client.v2.session.prompt({ ...prompt, delivery: "queue", id });
  expect(again).toMatchObject({ id, admittedSeq: admitted.admittedSeq });
});
