/**
 * End to end: a managed server whose bridge is SIGKILLed (so no code of the bridge runs) stops
 * by itself once no bridge has taken it up within `orphanTimeoutMs`, and is kept past that
 * bound while a successor bridge (on the same store) has taken it up. Real 1.18.33 binary,
 * scripted model; the bridges run as processes of their own (test/support/bridge-child.ts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { isProcessGroupAlive } from "../../src/server/process-group.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { trackProcess } from "../support/process-tracker.js";

const PROMPT = "[[slow 12 250]]";
// Long enough for a successor to take the server up on a loaded machine, short for a test.
const ORPHAN_TIMEOUT_MS = 5_000;

let model: ScriptedModel;
let root: string;
const servers: number[] = [];
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "ocb-orphan-"));
  model = await startScriptedModel();
});
afterAll(async () => {
  for (const pid of servers) {
    try {
      process.kill(-pid, "SIGKILL"); // only does anything when a test failed
    } catch {
      // gone, as it should be
    }
  }
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

/**
 * Runs a bridge child with a managed server until its turn streams, then SIGKILLs it. The
 * child's model is the shared scripted model with `ORPHAN_TIMEOUT_MS`, or, with `ownModel`, a
 * model server of its own (in its process) and the default bound.
 */
async function killedMidTurn(
  storePath: string,
  directory: string,
  { ownModel = false } = {},
): Promise<{ sessionId: string; serverPid: number }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "test/support/bridge-child.ts",
      storePath,
      directory,
      PROMPT,
      "managed",
      ownModel ? "demo" : model.url,
    ],
    {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: ownModel
        ? withoutOrphanTimeout(process.env)
        : { ...process.env, ORPHAN_TIMEOUT_MS: String(ORPHAN_TIMEOUT_MS) },
    },
  );
  trackProcess(child.pid, "bridge child (orphaned server)");
  let output = "";
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    const bound = setTimeout(
      () => reject(new Error(`the bridge child stalled: ${output}${errors}`)),
      90_000,
    );
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("delta")) {
        clearTimeout(bound);
        resolve();
      }
    });
    child.once("exit", () => reject(new Error(`the bridge child exited: ${output}${errors}`)));
  });
  const sessionId = /session (\S+)/.exec(output)?.[1] ?? "";
  const serverPid = Number(/server (\d+)/.exec(output)?.[1]);
  trackProcess(serverPid, "opencode serve (orphaned server)");
  servers.push(serverPid);
  if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  await exited;
  return { sessionId, serverPid };
}

function withoutOrphanTimeout(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { ORPHAN_TIMEOUT_MS: _, ...rest } = env;
  return rest;
}

async function gone(pid: number, boundMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (isProcessGroupAlive(pid)) {
    if (Date.now() > deadline) return false;
    await delay(100);
  }
  return true;
}

it("stops a managed server whose bridge was killed once nobody took it up within the bound", async () => {
  const directory = mkdtempSync(join(root, "untaken-"));
  const { serverPid } = await killedMidTurn(join(directory, "store.db"), directory);
  expect(await gone(serverPid)).toBe(true);
});

it("stops at once a managed server whose bridge ran its own model server and was killed", async () => {
  // That model died with the bridge: a successor could take the server up but run nothing on
  // it, so it is not kept for the default 5 minutes (`ocb serve --demo`, `npm start`).
  const directory = mkdtempSync(join(root, "own-model-"));
  const { serverPid } = await killedMidTurn(join(directory, "store.db"), directory, {
    ownModel: true,
  });
  expect(await gone(serverPid)).toBe(true);
});

it("keeps it past the bound once a successor took it up, and the successor stops it", async () => {
  const directory = mkdtempSync(join(root, "taken-"));
  const storePath = join(directory, "store.db");
  const { sessionId, serverPid } = await killedMidTurn(storePath, directory);
  const bridge = await Bridge.start({
    directory,
    store: storePath,
    config: { ...demoProviderConfig(model.url) },
    model: { providerID: "demo", modelID: "demo-1" },
    server: { orphanTimeoutMs: ORPHAN_TIMEOUT_MS },
  });
  try {
    expect(bridge.server.pid).toBe(serverPid); // taken up, not started anew
    const session = await bridge.openSession(sessionId);
    expect(await session.runningTurn?.done()).toMatchObject({ outcome: "completed" });
    await delay(ORPHAN_TIMEOUT_MS + 3_000); // past the bound: the successor holds it
    expect(isProcessGroupAlive(serverPid)).toBe(true);
    const next = await session.send("[[reply still here]]", { delivery: "queue" });
    expect(await next.done()).toMatchObject({ outcome: "completed", text: "still here" });
  } finally {
    await bridge.close();
  }
  expect(await gone(serverPid)).toBe(true);
});
