/**
 * A real sidecar (`startSidecar`) over a real Bridge on the real `opencode`, the scripted model
 * behind it, and a typed client of it: what the sidecar end-to-end tests and the web chat's
 * (chat-harness.ts) set up alike. A test file calls `useRealSidecar()` at its top level for one
 * per file, or `startRealSidecar()` for one of its own (another backend, say) and closes it.
 * Not the stand-in of sidecar-harness.ts, which runs no OpenCode.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { BackendKind } from "../../src/backends/backend.js";
import { BridgeClient } from "../../src/client/index.js";
import type { ModelRef } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { SandboxMode } from "../../src/server/sandbox/sandbox-options.js";
import {
  type Sidecar,
  type SidecarRemoteOptions,
  startSidecar,
} from "../../src/sidecar/sidecar.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { unixSocketTransport } from "../../src/tunnel/unix-socket-transport.js";
import type { Logger } from "../../src/util/logger.js";
import { trackProcess } from "./process-tracker.js";
import { shellHome } from "./shell-home.js";
import { NodeWebSocket } from "./ws.js";

export const DEMO_MODEL: ModelRef = { providerID: "demo", modelID: "demo-1" };
export const SIDECAR_TOKEN = "real-sidecar-e2e-token-0123456789abcdef";

export interface RealSidecar {
  model: ScriptedModel;
  bridge: Bridge;
  sidecar: Sidecar;
  /** The store the bridge and the sidecar share. */
  store: SqliteStore;
  /** A typed client of the sidecar. */
  client: BridgeClient;
  /** The sessions' directory. */
  directory: string;
  token: string;
  /** Stops the client, the sidecar, the bridge (and its server), the model, in that order. */
  close(): Promise<void>;
}

export interface RealSidecarOptions {
  /** Default `serve`. */
  backend?: BackendKind;
  /** OpenCode permissions (`BridgeOptions.permissions`); default the server's own. */
  permissions?: "ask" | Record<string, unknown>;
  /** A store file (kept on close; default: one in memory). */
  storeFile?: string;
  /** The sessions' directory (kept on close); default a temp dir of its own, removed on close. */
  directory?: string;
  /** The sandbox OpenCode runs in (default none). */
  sandbox?: SandboxMode;
  /** OpenCode's kept data dir (`server.dataDir`, `--opencode-data`); default a fresh one. */
  dataDir?: string;
  /** Serve the web chat (`startSidecar`'s `web`, default true). */
  web?: boolean;
  /** The sidecar's logger (default: its log lines on stderr). */
  logger?: Logger;
  /** Default `SIDECAR_TOKEN`. */
  token?: string;
  /** Directories besides `directory` where clients may make sessions (`startSidecar`'s). */
  allowDirectories?: string[];
  /** Named in the tracked server's description (which test file it belongs to). */
  label?: string;
  /**
   * A running `opencode serve` to attach to (`BridgeOptions.attach`) instead of a managed one:
   * it must already know the scripted model (`model`).
   */
  attach?: { url: string; password?: string };
  /** The caller's scripted model (left running on close); default one of its own. */
  model?: ScriptedModel;
  /** Reachable through relays too (`startSidecar`'s `remote`). */
  remote?: SidecarRemoteOptions;
  /**
   * On a Unix socket of its own instead of a port (`startSidecar`'s `socketPath`, in a private
   * temp dir): the typed client then calls it through `unixSocketTransport`.
   */
  onSocket?: boolean;
}

export async function startRealSidecar(options: RealSidecarOptions = {}): Promise<RealSidecar> {
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), "ocb-real-sidecar-"));
  const token = options.token ?? SIDECAR_TOKEN;
  const store = SqliteStore.open(options.storeFile ?? ":memory:");
  const started: { model?: ScriptedModel; bridge?: Bridge; sidecar?: Sidecar } = {};
  const socketDir =
    options.onSocket === true ? mkdtempSync(join(tmpdir(), "ocb-real-socket-")) : undefined;
  const close = async (): Promise<void> => {
    await started.sidecar?.close();
    if (socketDir !== undefined) rmSync(socketDir, { recursive: true, force: true });
    await started.bridge?.close();
    if (options.model === undefined) await started.model?.close();
    store.close();
    if (options.directory === undefined) rmSync(directory, { recursive: true, force: true });
  };
  try {
    started.model = options.model ?? (await startScriptedModel());
    started.bridge = await Bridge.start({
      directory,
      model: DEMO_MODEL,
      store,
      ...(options.backend === undefined ? {} : { backend: options.backend }),
      ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
      ...(options.attach === undefined
        ? {
            config: { ...demoProviderConfig(started.model.url) },
            server: {
              env: { HOME: shellHome() },
              ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
              ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
            },
          }
        : { attach: options.attach }),
    });
    trackProcess(started.bridge.server.pid, `opencode serve (${options.label ?? "real sidecar"})`);
    started.sidecar = await startSidecar({
      bridge: started.bridge,
      token,
      store,
      ...(options.web === undefined ? {} : { web: options.web }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.allowDirectories === undefined
        ? {}
        : { allowDirectories: options.allowDirectories }),
      ...(options.remote === undefined ? {} : { remote: options.remote }),
      ...(socketDir === undefined ? {} : { socketPath: join(socketDir, "sidecar.sock") }),
    });
  } catch (error) {
    await close();
    throw error;
  }
  const { model, bridge, sidecar } = started;
  const socket =
    sidecar.socketPath === undefined ? undefined : unixSocketTransport(sidecar.socketPath);
  const client = new BridgeClient({
    url: sidecar.url,
    token,
    ...(socket === undefined
      ? { WebSocket: NodeWebSocket }
      : { fetch: socket.fetch, WebSocket: socket.WebSocket }),
  });
  return {
    model,
    bridge,
    sidecar,
    store,
    client,
    directory,
    token,
    async close() {
      client.close();
      socket?.close();
      await close();
    },
  };
}

/** One real sidecar for the test file that calls this (at its top level), closed after the file. */
export function useRealSidecar(options: RealSidecarOptions = {}): {
  readonly current: RealSidecar;
} {
  let started: RealSidecar | undefined;
  beforeAll(async () => {
    started = await startRealSidecar(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    get current(): RealSidecar {
      if (started === undefined) throw new Error("the real sidecar is started in beforeAll");
      return started;
    },
  };
}
