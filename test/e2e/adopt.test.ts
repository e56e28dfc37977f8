/**
 * End to end: a bridge process is SIGKILLed mid-turn, and a new bridge on the same store adopts
 * the session: the turn carries on from the stored cursor and ends once, and the stored
 * transcript equals that of an uninterrupted run (once ids and times are left out). The
 * OpenCode server (real 1.18.33 binary, scripted model) outlives the killed bridge: both
 * bridges attach to it.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { serverPasswordOf } from "../../bench/reliability/secrets/server-password.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { OpencodeServerHandle } from "../../src/server/server-handle.js";
import { startOpencode } from "../../src/server/start-opencode.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { isRunning, trackProcess } from "../support/process-tracker.js";

const PROMPT = "[[slow 12 250]]";
const TEXT = Array.from({ length: 12 }, (_, index) => `tok${index + 1}`).join(" ");

let model: ScriptedModel;
let server: OpencodeServerHandle;
let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "ocb-adopt-"));
  model = await startScriptedModel();
  server = await startOpencode({ directory: root, config: { ...demoProviderConfig(model.url) } });
  trackProcess(server.pid, "opencode serve (adopt)");
});
afterAll(async () => {
  await server?.close();
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

/**
 * Runs the bridge child until it has seen the turn's first delta, then SIGKILLs it (its own
 * process group only: a managed server runs in a group of its own, and outlives it).
 */
async function killedMidTurn(
  storePath: string,
  directory: string,
  where: string[],
): Promise<{ sessionId: string; serverPid: number | undefined }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/support/bridge-child.ts", storePath, directory, PROMPT, ...where],
    { detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  trackProcess(child.pid, "bridge child (adopt)");
  let output = "";
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const sessionId = await new Promise<string>((resolve, reject) => {
    const bound = setTimeout(
      () => reject(new Error(`the bridge child stalled: ${output}${errors}`)),
      60_000,
    );
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const id = /session (\S+)/.exec(output)?.[1];
      if (id !== undefined && output.includes("delta")) {
        clearTimeout(bound);
        resolve(id);
      }
    });
    child.once("exit", () => reject(new Error(`the bridge child exited: ${output}${errors}`)));
  });
  const serverPid = /server (\d+)/.exec(output)?.[1];
  if (serverPid !== undefined) trackProcess(Number(serverPid), "opencode serve (adopt, managed)");
  if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  await exited;
  return { sessionId, serverPid: serverPid === undefined ? undefined : Number(serverPid) };
}

/** What must agree between runs: types and the data that is not an id or a time. */
function signature(events: readonly CanonicalEvent[]): string[] {
  return events.map((event) => {
    if (event.type === "text.ended") return `${event.type} ${event.data.text}`;
    if (event.type === "turn.ended")
      return `${event.type} ${event.data.outcome} ${event.data.text}`;
    return event.type;
  });
}

it("adopts a turn whose bridge was killed: it carries on and ends once, the transcript whole", async () => {
  const storePath = join(root, "store.db");
  const { sessionId } = await killedMidTurn(storePath, root, [
    "attach",
    server.url,
    server.password ?? "",
  ]);

  const bridge = await Bridge.start({
    directory: root,
    attach: { url: server.url, password: server.password ?? "" },
    store: storePath,
    model: { providerID: "demo", modelID: "demo-1" },
  });
  try {
    const kept = SqliteStore.open(storePath);
    const before = await kept.read(sessionId);
    kept.close();
    expect(before.some((event) => event.type === "turn.started")).toBe(true);
    expect(before.some((event) => event.type === "turn.ended")).toBe(false);

    const session = await bridge.openSession(sessionId);
    const turn = session.runningTurn;
    expect(turn).toBeDefined();
    expect(await turn?.done()).toMatchObject({ outcome: "completed", text: TEXT });

    const adopted = await session.transcript();
    expect(adopted.filter((event) => event.type === "turn.ended")).toHaveLength(1);
    expect(adopted.map((event) => event.seq)).toEqual(adopted.map((_, index) => index + 1));

    // The same prompt, uninterrupted, on the same server: the same transcript.
    const reference = await bridge.createSession({ title: "reference" });
    await (await reference.send(PROMPT, { delivery: "queue" })).done();
    expect(signature(adopted)).toEqual(signature(await reference.transcript()));
  } finally {
    await bridge.close();
  }
});

it("takes up the managed server a killed bridge left running, adopts its turn, then stops it", async () => {
  const directory = mkdtempSync(join(root, "managed-"));
  const storePath = join(directory, "store.db");
  const { sessionId, serverPid } = await killedMidTurn(storePath, directory, [
    "managed",
    model.url,
  ]);
  expect(serverPid).toBeDefined();
  // The killed bridge's server still runs (a process group of its own).
  expect(isRunning(serverPid ?? 0)).toBe(true);
  // The store the killed bridge left holds no server password (its keeper does): a copy of
  // the file gives nobody the server.
  const password = serverPasswordOf([serverPid ?? 0]);
  expect(password).toBeDefined();
  for (const file of [storePath, `${storePath}-wal`].filter((path) => existsSync(path))) {
    expect(readFileSync(file).includes(password ?? "")).toBe(false);
  }

  const bridge = await Bridge.start({
    directory,
    store: storePath,
    config: { ...demoProviderConfig(model.url) },
    model: { providerID: "demo", modelID: "demo-1" },
  });
  try {
    expect(bridge.server.pid).toBe(serverPid);
    const session = await bridge.openSession(sessionId);
    expect(await session.runningTurn?.done()).toMatchObject({ outcome: "completed", text: TEXT });
    const ends = (await session.transcript()).filter((event) => event.type === "turn.ended");
    expect(ends).toHaveLength(1);
  } finally {
    await bridge.close();
  }
  // Stopped with the bridge that took it up: nothing left running.
  expect(isRunning(serverPid ?? 0)).toBe(false);
});
