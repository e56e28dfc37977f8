/**
 * The web chat end to end: a real sidecar (`startSidecar`) over a real Bridge on the real
 * `opencode`, with the scripted model behind it, serving the built chat (`dist/web`). A test
 * file calls `useChatHarness()` at its top level; a typed client (`harness.client`) sets up
 * and checks what the page cannot show (sessions made ahead, what the model received).
 */
import { afterAll, beforeAll } from "vitest";
import type { BackendKind } from "../../src/backends/backend.js";
import type { BridgeClient } from "../../src/client/index.js";
import type { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { SandboxMode } from "../../src/server/sandbox/sandbox-options.js";
import type { Sidecar } from "../../src/sidecar/sidecar.js";
import type { ScriptedModel } from "../../src/testing/scripted-model/index.js";
import { type Logger, silentLogger } from "../../src/util/logger.js";
import { startRealSidecar } from "./real-sidecar.js";
import { assertWebBuilt } from "./web-build.js";

export { DEMO_MODEL } from "./real-sidecar.js";
export const CHAT_TOKEN = "web-chat-e2e-token-0123456789abcdef";

export interface ChatHarness {
  model: ScriptedModel;
  bridge: Bridge;
  sidecar: Sidecar;
  /** A typed client of the same sidecar, for setting up and checking from the test. */
  client: BridgeClient;
  /** The sessions' directory. */
  directory: string;
  /** The chat's address with the token in the fragment, as `ocb serve` prints it. */
  chatUrl: string;
  close(): Promise<void>;
}

export interface ChatHarnessOptions {
  /** Default `serve`; subagents need `serve-legacy` (1.18's /api runtime has no task tool). */
  backend?: BackendKind;
  /** Default: edits ask (the diff tests), shell commands and fetches run. */
  permissions?: Record<string, unknown>;
  /** A store file to keep sessions in across harnesses (default: one in memory). */
  storeFile?: string;
  /** The sessions' directory (kept on close); default a temp dir of its own, removed on close. */
  directory?: string;
  /** The sandbox OpenCode runs in (default none). */
  sandbox?: SandboxMode;
  /**
   * OpenCode's data dir (kept on close; default a fresh one): one where `opencode run` made
   * sessions beforehand gives the chat something to import.
   */
  dataDir?: string;
  /** Directories besides `directory` where the chat may make sessions (more projects). */
  allowDirectories?: string[];
}

/** A real sidecar serving the built chat (test/support/real-sidecar.ts), its store of its own. */
export async function startChatHarness(options: ChatHarnessOptions = {}): Promise<ChatHarness> {
  assertWebBuilt();
  const real = await startRealSidecar({
    ...options,
    permissions: options.permissions ?? { edit: "ask", bash: "allow", webfetch: "allow" },
    token: CHAT_TOKEN,
    label: "web chat e2e",
    logger: SIDECAR_ERRORS_TO_STDERR,
  });
  const { model, bridge, sidecar, client, directory } = real;
  return {
    model,
    bridge,
    sidecar,
    client,
    directory,
    chatUrl: chatUrlOf(sidecar.url),
    close: real.close,
  };
}

/**
 * The sidecar's error lines (a request that failed: its route and why) go to the test's output:
 * a page's console says only "Failed to load resource: … 502", and a clean clone's run is not
 * there to be asked again.
 */
const SIDECAR_ERRORS_TO_STDERR: Logger = {
  ...silentLogger,
  error: (message, fields) => {
    process.stderr.write(`sidecar (web chat e2e): ${message} ${JSON.stringify(fields ?? {})}\n`);
  },
};

/** The chat at `origin`, with the token in the fragment (never sent to the server). */
export function chatUrlOf(origin: string): string {
  return `${origin}/#token=${CHAT_TOKEN}`;
}

/** One harness for the test file that calls this (at its top level), closed after the file. */
export function useChatHarness(options: ChatHarnessOptions = {}): {
  readonly current: ChatHarness;
} {
  let harness: ChatHarness | undefined;
  beforeAll(async () => {
    harness = await startChatHarness(options);
  });
  afterAll(async () => {
    await harness?.close();
  });
  return {
    get current(): ChatHarness {
      if (harness === undefined) throw new Error("the chat harness is started in beforeAll");
      return harness;
    },
  };
}
