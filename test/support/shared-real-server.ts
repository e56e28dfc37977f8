/**
 * One real `opencode serve` (and its scripted model) shared by the tests of a file, or of a
 * `describe` block, that neither kill, restart nor reconfigure their server. Starting the
 * server costs seconds of CPU (more on a loaded machine), and sessions on one server are
 * independent: each test opens its own, in a directory of its own when it needs one
 * (`freshDirectory`). A test that stops or restarts its server keeps a private one
 * (`startRealServer`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { waitForModel } from "../../src/opencode-client/wait-for-model.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { BridgeOptions } from "../../src/runtime/bridge/bridge-options.js";
import { managedConfig } from "../../src/runtime/bridge/managed-config.js";
import { type RealServer, startRealServer } from "./real-server.js";

/** The demo provider's model, as the shared server's config names it. */
export const DEMO_MODEL = { providerID: "demo", modelID: "demo-1" } as const;

/**
 * The bound on the shared server's start, and on a location's model catalog loading: one
 * start carries a whole file's tests, and on a loaded 2-core machine (other suites beside this
 * one) each has taken over the 30 s default. A safety net, never an assertion.
 */
const SHARED_READY_TIMEOUT_MS = 90_000;

/**
 * Starts the server before the block's tests and stops it after them; the returned function
 * gives it to a test or hook (it throws when called before `beforeAll` ran).
 */
export function useRealServer(config: Record<string, unknown> = {}): () => RealServer {
  let real: RealServer | undefined;
  beforeAll(async () => {
    real = await startRealServer(config, { startupTimeoutMs: SHARED_READY_TIMEOUT_MS });
    // Ready means its catalog lists the demo model too: the first test's session would
    // otherwise wait for it under the bridge's tighter bound.
    await waitForModel(
      real.client,
      { providerID: DEMO_MODEL.providerID, id: DEMO_MODEL.modelID },
      {
        timeoutMs: SHARED_READY_TIMEOUT_MS,
      },
    );
  });
  afterAll(async () => {
    await real?.close();
  });
  return () => {
    if (real === undefined) throw new Error("the shared real server is not started yet");
    return real;
  };
}

/**
 * What a bridge adds to the config of a server it starts on the demo model: OpenCode's own
 * provider off (`demoModelServer`) and its experimental defaults (`managedConfig`). Bridges
 * attached to a server started with it see what one that started its own would.
 */
const AS_A_BRIDGE_STARTS_IT = managedConfig({}, { disabled_providers: ["opencode"] });

/** `useRealServer` for bridges to attach to (`attachBridge`): the config a bridge starts its own with. */
export function useBridgeServer(config: Record<string, unknown> = {}): () => RealServer {
  return useRealServer({ ...AS_A_BRIDGE_STARTS_IT, ...config });
}

/**
 * A bridge attached to `real` (the demo model, the server's directory unless given): closing
 * it leaves the server running for the next one.
 */
export function attachBridge(
  real: RealServer,
  options: Omit<BridgeOptions, "attach" | "directory" | "modelServer"> & {
    directory?: string;
  } = {},
): Promise<Bridge> {
  return Bridge.start({
    model: DEMO_MODEL,
    modelReadyTimeoutMs: SHARED_READY_TIMEOUT_MS,
    ...options,
    directory: options.directory ?? real.directory,
    attach: { url: real.server.url, password: real.server.password ?? "" },
  });
}

/** A directory of its own for `use`, removed after it (on the shared server, a location of its own). */
export async function inFreshDirectory<T>(
  prefix: string,
  use: (directory: string) => Promise<T>,
): Promise<T> {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await use(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
