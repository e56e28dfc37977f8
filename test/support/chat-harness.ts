/**
 * The web chat end to end: a real sidecar (`startSidecar`) over a real Bridge on the real
 * `opencode`, with the scripted model behind it, serving the built chat (`dist/web`). A test
 * file calls `useChatHarness()` at its top level; a typed client (`harness.client`) sets up
 * and checks what the page cannot show (sessions made ahead, what the model received).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { BackendKind } from "../../src/backends/backend.js";
import type { ModelRef } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { SandboxMode } from "../../src/server/sandbox/sandbox-options.js";
import { type Sidecar, startSidecar } from "../../src/sidecar/sidecar.js";
import { BridgeClient } from "../../src/sidecar-client/index.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { trackProcess } from "./process-tracker.js";
import { assertWebBuilt } from "./web-build.js";
import { NodeWebSocket } from "./ws.js";

export const CHAT_TOKEN = "web-chat-e2e-token-0123456789abcdef";
export const DEMO_MODEL: ModelRef = { providerID: "demo", modelID: "demo-1" };

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
}

export async function startChatHarness(options: ChatHarnessOptions = {}): Promise<ChatHarness> {
  assertWebBuilt();
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), "ocb-web-e2e-"));
  // A store of its own: the session list shows this file's sessions only.
  const store = SqliteStore.open(options.storeFile ?? ":memory:");
  const started: { model?: ScriptedModel; bridge?: Bridge; sidecar?: Sidecar } = {};
  const close = async (): Promise<void> => {
    await started.sidecar?.close();
    await started.bridge?.close();
    await started.model?.close();
    store.close();
    if (options.directory === undefined) rmSync(directory, { recursive: true, force: true });
  };
  try {
    started.model = await startScriptedModel();
    started.bridge = await Bridge.start({
      directory,
      config: { ...demoProviderConfig(started.model.url) },
      model: DEMO_MODEL,
      store,
      ...(options.backend === undefined ? {} : { backend: options.backend }),
      permissions: options.permissions ?? { edit: "ask", bash: "allow", webfetch: "allow" },
      ...(options.sandbox === undefined ? {} : { server: { sandbox: options.sandbox } }),
    });
    trackProcess(started.bridge.server.pid, "opencode serve (web chat e2e)");
    started.sidecar = await startSidecar({ bridge: started.bridge, token: CHAT_TOKEN, store });
  } catch (error) {
    await close();
    throw error;
  }
  const { model, bridge, sidecar } = started;
  const client = new BridgeClient({
    url: sidecar.url,
    token: CHAT_TOKEN,
    WebSocket: NodeWebSocket,
  });
  return {
    model,
    bridge,
    sidecar,
    client,
    directory,
    chatUrl: chatUrlOf(sidecar.url),
    async close() {
      client.close();
      await close();
    },
  };
}

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
