/**
 * A real sidecar for the sidecar scenarios: a `Bridge` on the real `opencode` with the scripted
 * model (under a provider API key of the rig's own, told to the suite as a secret), a SQLite
 * store, and `startSidecar` over it, in this process (so that its heap can be read after a GC).
 * Every file goes in the scenario's `workDir` (store, bridge and sidecar logs); every process it
 * starts is watched, so that `close()` can count the ones left running, and kill them.
 */
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { Bridge } from "../../../src/runtime/bridge/bridge.js";
import type { ModelServerFactory } from "../../../src/runtime/bridge/model-server.js";
import type { SidecarLimits } from "../../../src/sidecar/limits.js";
import { lineLogger } from "../../../src/sidecar/log-lines.js";
import { type Sidecar, startSidecar } from "../../../src/sidecar/sidecar.js";
import { SqliteStore } from "../../../src/store/sqlite-store.js";
import { demoProviderConfig, demoProviderId } from "../../../src/testing/demo-provider.js";
import { scriptedModelId, startScriptedModel } from "../../../src/testing/scripted-model/index.js";
import type { Logger } from "../../../src/util/logger.js";
import { DescendantWatch } from "../../../test/support/descendants.js";
import { withoutAlongside } from "../processes/alongside.js";
import type { ScenarioContext } from "../scenario.js";

export interface SidecarRig {
  bridge: Bridge;
  sidecar: Sidecar;
  store: SqliteStore;
  /** `http://127.0.0.1:port`. */
  url: string;
  token: string;
  /** `Authorization` header with the token. */
  auth: { authorization: string };
  /** Stops the sidecar, the bridge and the store; the processes it started still running after. */
  close(): Promise<number>;
}

/** The scripted model under a key of our own (the demo's is a fixed word, not a secret). */
function scriptedModel(apiKey: string): ModelServerFactory {
  return async ({ logger }) => {
    const model = await startScriptedModel({ logger });
    // It keeps every request it answered; a scenario of thousands of turns reads none of them.
    const forget = setInterval(() => model.requests.splice(0), 1_000);
    forget.unref();
    const config = demoProviderConfig(model.url);
    config.provider.demo.options.apiKey = apiKey;
    return {
      config: { ...config },
      defaultModel: { providerID: demoProviderId, modelID: scriptedModelId },
      close: async () => {
        clearInterval(forget);
        await model.close();
      },
    };
  };
}

function fileLogger(stream: WriteStream): Logger {
  return lineLogger("json", (line) => stream.write(line));
}

const secretText = () => randomBytes(24).toString("base64url");

/** Starts the bridge and its sidecar for `context`'s scenario. */
export async function startSidecarRig(
  context: ScenarioContext,
  options: { limits?: Partial<SidecarLimits> } = {},
): Promise<SidecarRig> {
  const watch = new DescendantWatch(process.pid, 250);
  const before = new Set(watch.seen.map((seen) => seen.pid));
  const directory = join(context.workDir, "project");
  mkdirSync(directory, { recursive: true });
  const token = secretText();
  const apiKey = secretText();
  context.secret(token);
  context.secret(apiKey);
  const bridgeLog = createWriteStream(join(context.workDir, "bridge.log"));
  const sidecarLog = createWriteStream(join(context.workDir, "sidecar.log"));
  const store = SqliteStore.open(join(context.workDir, "store.db"));
  let bridge: Bridge | undefined;
  let sidecar: Sidecar | undefined;
  const close = async (): Promise<number> => {
    try {
      await sidecar?.close();
      await bridge?.close();
      await store.close();
    } finally {
      bridgeLog.end();
      sidecarLog.end();
      watch.poll();
      watch.stop();
    }
    const alive = new Set(watch.running().map((seen) => seen.pid));
    const left = withoutAlongside(watch.seen).filter(
      (seen) => alive.has(seen.pid) && !before.has(seen.pid),
    );
    // Counted, then stopped: a leak is a finding, never a process left behind by the suite.
    for (const { pid } of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    return left.length;
  };
  try {
    bridge = await Bridge.start({
      directory,
      modelServer: scriptedModel(apiKey),
      store,
      permissions: "allow-all",
      logger: fileLogger(bridgeLog),
    });
    if (bridge.server.password !== undefined) context.secret(bridge.server.password);
    sidecar = await startSidecar({
      bridge,
      token,
      store,
      logger: fileLogger(sidecarLog),
      web: false,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
    });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    bridge,
    sidecar,
    store,
    url: sidecar.url,
    token,
    auth: { authorization: `Bearer ${token}` },
    close,
  };
}
