/**
 * Starts the real `opencode` binary for end-to-end tests, with the scripted model as its
 * provider, and records its pid for the suite's leak check.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { OpencodeClient } from "../../src/opencode-client/opencode-client.js";
import {
  type OpencodeServerHandle,
  type StartOpencodeOptions,
  startOpencode,
} from "../../src/server/index.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { HttpTransport } from "../../src/transport/http-transport.js";
import { trackProcess } from "./process-tracker.js";
import { shellHome } from "./shell-home.js";

export interface RealServer {
  server: OpencodeServerHandle;
  model: ScriptedModel;
  client: OpencodeClient;
  /** A fresh project directory the sessions work in. */
  directory: string;
  close(): Promise<void>;
}

/**
 * A fresh project directory for the real server: `/tmp/ocb-e2e-work-XXXXXX`, in `/tmp` itself
 * whatever `TMPDIR` says. Its path's length shows in what the model is sent (the system prompt
 * names the directory), and so in the token counts recorded in the fixtures: a scenario
 * recorded in a directory of another length differs (`npm test`'s own `TMPDIR`, 22 characters
 * longer, made every re-recording differ by 5 input tokens).
 */
export function workDirectory(): string {
  return mkdtempSync(join("/tmp", "ocb-e2e-work-"));
}

/** The real server with the scripted model behind it; `close()` stops both and removes temp dirs. */
export async function startRealServer(
  config: Record<string, unknown> = {},
  options: Pick<StartOpencodeOptions, "startupTimeoutMs"> = {},
): Promise<RealServer> {
  const model = await startScriptedModel();
  const directory = workDirectory();
  let server: OpencodeServerHandle;
  try {
    server = await startOpencode({
      ...options,
      directory,
      env: { HOME: shellHome() },
      config: mergeConfig(demoProviderConfig(model.url), config),
    });
  } catch (error) {
    await model.close();
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  trackProcess(server.pid, "opencode serve (e2e)");
  const client = new OpencodeClient(
    new HttpTransport({ url: server.url, password: server.password }),
    { directory },
  );
  return {
    server,
    model,
    client,
    directory,
    async close() {
      await server.close();
      await model.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** `extra` over `base`, with providers merged one level deeper so the demo provider stays. */
function mergeConfig(
  base: ReturnType<typeof demoProviderConfig>,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const providers = (extra.provider ?? {}) as Record<string, unknown>;
  return { ...base, ...extra, provider: { ...base.provider, ...providers } };
}
