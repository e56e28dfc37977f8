/**
 * End to end: session lifetimes with a store, against the real 1.18.33 binary and the
 * scripted model — an idle session is released (upstream kept) and opened again; a killed
 * session is deleted upstream and cannot be opened; records and transcripts stay in the store.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OpencodeApiError } from "../../src/errors.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";

let bridge: Bridge;
let directory: string;
beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ocb-lifetimes-"));
  bridge = await Bridge.start({
    directory,
    modelServer: demoModelServer,
    store: join(directory, "store.db"),
    idleReleaseMs: 300,
  });
  trackProcess(bridge.server.pid, "opencode serve (lifetimes)");
});
afterAll(async () => {
  await bridge?.close();
  rmSync(directory, { recursive: true, force: true });
});

async function stateOf(id: string): Promise<string | undefined> {
  return (await bridge.sessions()).find((record) => record.id === id)?.state;
}

it("releases an idle session, and opens it again with its transcript", async () => {
  const session = await bridge.createSession({ title: "idle" });
  expect(await stateOf(session.id)).toBe("open");
  await (await session.send("[[reply first]]", { delivery: "queue" })).done();
  for (let waited = 0; (await stateOf(session.id)) !== "released"; waited += 50) {
    if (waited > 10_000) throw new Error("the idle session was not released");
    await delay(50);
  }
  const reopened = await bridge.openSession(session.id);
  expect(reopened).not.toBe(session);
  expect((await reopened.transcript()).map((event) => event.type)).toContain("turn.ended");
  const next = await reopened.send("[[reply second]]", { delivery: "queue" });
  expect(await next.done()).toMatchObject({ outcome: "completed", text: "second" });
  const ends = (await reopened.transcript()).filter((event) => event.type === "turn.ended");
  expect(ends).toHaveLength(2);
  expect((await reopened.transcript()).map((event) => event.seq)).toEqual(
    (await reopened.transcript()).map((_, index) => index + 1),
  );
});

it("kills a session: deleted upstream, refused when opened, its transcript kept", async () => {
  const session = await bridge.createSession({ title: "kill" });
  await (await session.send("[[reply bye]]", { delivery: "queue" })).done();
  await bridge.killSession(session);
  expect(await stateOf(session.id)).toBe("killed");
  await expect(bridge.client.session.get({ sessionID: session.id })).rejects.toBeInstanceOf(
    OpencodeApiError,
  );
  await expect(bridge.openSession(session.id)).rejects.toThrow(/was killed/);
  await expect(bridge.openSession("ses_nope")).rejects.toThrow(/no session/);
});
