import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CanonicalEvent } from "../src/events/canonical.js";
import { Bridge } from "../src/runtime/bridge/bridge.js";
import { type Sidecar, startSidecar } from "../src/sidecar/sidecar.js";
import { SqliteStore } from "../src/store/sqlite-store.js";
import { demoModelServer } from "../src/testing/demo-model-server.js";
import { gitWorktree } from "../test/support/git-worktree.js";
import { RawApi } from "./raw-api.js";

const TOKEN = "bench-control-calls-token-0123456789";
/** Bound on each call and each turn of the setup. */
export const CALL_BOUND_MS = 30_000;

export interface ControlRig {
  bridge: Bridge;
  sidecar: Sidecar;
  directory: string;
  /** OpenCode straight: Basic auth and `x-opencode-directory`, as the bridge's client sends. */
  raw: RawApi;
  /** OpenCode's URL. */
  opencodeUrl: string;
  /** `Authorization: Bearer` for the sidecar. */
  sidecarHeaders: Record<string, string>;
  /** A session made through the sidecar; its OpenCode id. */
  createSession(title: string): Promise<{ id: string; upstreamId: string }>;
  /** Sends `text` through the sidecar and waits for its turn's end; the input's id. */
  turn(sessionId: string, text: string): Promise<string>;
  close(): Promise<void>;
}

/** A git repository with one commit and one uncommitted change, so that VCS reads have rows. */
function repository(): string {
  const directory = gitWorktree("ocb-bench-controls-", {
    "README.md": "# bench\n\nA small project for the bench.\n",
    "notes.txt": "one\ntwo\n",
  });
  writeFileSync(join(directory, "notes.txt"), "one\ntwo\nthree\n");
  return directory;
}

export async function startControlRig(): Promise<ControlRig> {
  const directory = repository();
  const store = SqliteStore.open(join(directory, ".ocb-store.db"));
  let bridge: Bridge | undefined;
  let sidecar: Sidecar | undefined;
  const close = async () => {
    await sidecar?.close();
    await bridge?.close();
    store.close();
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    bridge = await Bridge.start({
      directory,
      store,
      modelServer: demoModelServer,
      server: { startupTimeoutMs: 60_000 },
    });
    sidecar = await startSidecar({ bridge, token: TOKEN, store, web: false });
  } catch (error) {
    await close();
    throw error;
  }
  const started = { bridge, sidecar };
  const sidecarHeaders = { authorization: `Bearer ${TOKEN}` };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${started.sidecar.url}${path}`, {
      method: "POST",
      headers: { ...sidecarHeaders, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CALL_BOUND_MS),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  return {
    ...started,
    directory,
    raw: new RawApi({
      url: started.bridge.server.url,
      password: started.bridge.server.password,
      directory,
    }),
    opencodeUrl: started.bridge.server.url,
    sidecarHeaders,
    async createSession(title) {
      const { id } = (await post("/v1/sessions", { title })) as { id: string };
      const session = await started.bridge.openSession(id);
      return { id, upstreamId: session.upstreamId ?? "" };
    },
    async turn(sessionId, text) {
      const session = await started.bridge.openSession(sessionId);
      const signal = AbortSignal.timeout(CALL_BOUND_MS);
      const events = session.events({ signal });
      const sent = (await post(`/v1/sessions/${sessionId}/inputs`, {
        text,
        delivery: "queue",
      })) as { turnId: string; inputId: string };
      for await (const event of events as AsyncIterable<CanonicalEvent>) {
        if (event.type === "turn.ended" && event.turnId === sent.turnId) {
          if (event.data.outcome !== "completed") {
            throw new Error(`a setup turn ended ${event.data.outcome}`);
          }
          return sent.inputId;
        }
      }
      throw new Error("the session's events ended before the setup turn did");
    },
    close,
  };
}
