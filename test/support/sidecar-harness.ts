/**
 * The sidecar's app over a stand-in bridge whose sessions run on the in-process backend (see
 * in-process-backend.ts): for the HTTP layer's own rules (security, validation, errors,
 * idempotency) with `app.inject()`, where no OpenCode is involved. Not end to end: the e2e
 * test (test/e2e/sidecar-api.test.ts) drives a real bridge.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Response as InjectResponse } from "light-my-request";
import { afterEach } from "vitest";
import { UsageError } from "../../src/errors.js";
import type { ModelRef } from "../../src/events/canonical.js";
import type { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { Session } from "../../src/runtime/session/session.js";
import { buildApp } from "../../src/sidecar/app.js";
import type { SidecarContext } from "../../src/sidecar/context.js";
import type { SidecarLimits } from "../../src/sidecar/limits.js";
import { createSidecarContext } from "../../src/sidecar/sidecar.js";
import type { SidecarApp } from "../../src/sidecar/sidecar-app.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import type { SessionQuery, Store } from "../../src/store/store.js";
import type { Logger } from "../../src/util/logger.js";
import { type SessionInfo, SessionInfoSchema } from "../../src/wire/http.js";
import { type InProcessBackend, inProcessSession } from "./in-process-backend.js";

export const TOKEN = "test-token-0123456789abcdef";
export const AUTH = { authorization: `Bearer ${TOKEN}` } as const;
export const JSON_HEADERS = { ...AUTH, "content-type": "application/json" } as const;

export interface SidecarHarness {
  app: SidecarApp;
  ctx: SidecarContext;
  directory: string;
  /** The in-process backend of each session the stand-in bridge made, by session id. */
  backends: Map<string, InProcessBackend>;
  /** Starts stopping, as `Sidecar.close()` does first (`ctx.stopping` aborted). */
  stop(): void;
  close(): Promise<void>;
}

const MODEL: ModelRef = { providerID: "demo", modelID: "demo-1" };

/**
 * A stand-in for `Bridge` whose sessions run on the in-process backend, with what the sidecar
 * calls, each as the real Bridge does it (records kept in `store`).
 */
export function standInBridge(
  directory: string,
  store: Store,
): { bridge: Bridge; backends: Map<string, InProcessBackend>; open: Map<string, Session> } {
  const backends = new Map<string, InProcessBackend>();
  const open = new Map<string, Session>();
  let count = 0;
  const follow = (id: string, where = directory): Session => {
    const { session, backend } = inProcessSession(id, { directory: where, store });
    backends.set(id, backend);
    open.set(id, session);
    return session;
  };
  const standIn = {
    backend: "subprocess",
    directory,
    defaultModel: MODEL,
    sessions: (query?: SessionQuery) => store.sessions(query),
    async createSession(
      options: { title?: string; directory?: string; claim?: (id: string) => Promise<void> } = {},
    ) {
      const id = `ses_unit_${directory.slice(-6)}_${++count}`;
      await options.claim?.(id);
      const now = Date.now();
      await store.saveSession({
        id,
        backend: "subprocess",
        directory: options.directory ?? directory,
        ...(options.title === undefined ? {} : { title: options.title }),
        state: "open",
        createdAt: now,
        updatedAt: now,
      });
      return follow(id, options.directory);
    },
    async openSession(id: string) {
      return open.get(id) ?? follow(id, (await store.session(id))?.directory);
    },
    async releaseSession(session: Session) {
      open.delete(session.id);
      await session.close();
      const record = await store.session(session.id);
      if (record !== undefined) await store.saveSession({ ...record, state: "released" });
    },
    // The subprocess backend has no fork and no continuation (capabilities.fork, .rehydrate).
    async forkSession() {
      throw new UsageError("the subprocess backend cannot fork a session");
    },
    async continueSession() {
      throw new UsageError(
        "the subprocess backend cannot continue a session in a new OpenCode session",
      );
    },
    // Nor can it list or import the user's own OpenCode sessions (capabilities.importSessions).
    async upstreamSessions() {
      throw new UsageError("the subprocess backend cannot import OpenCode sessions");
    },
    async importSession() {
      throw new UsageError("the subprocess backend cannot import OpenCode sessions");
    },
    async detachSession(session: Session) {
      open.delete(session.id);
      await session.detach();
    },
    async compactSession(id: string, options: { signal?: AbortSignal } = {}) {
      const session = open.get(id) ?? follow(id, (await store.session(id))?.directory);
      await session.compact(options);
      return session;
    },
    async killSession(session: Session) {
      open.delete(session.id);
      await session.close();
      const record = await store.session(session.id);
      if (record !== undefined) await store.saveSession({ ...record, state: "killed" });
    },
  };
  return { bridge: standIn as unknown as Bridge, backends, open };
}

/** A sidecar app (not listening) on port 80, so that `inject()`'s default Host `localhost:80` is its own. */
export function sidecarHarness(
  options: {
    logger?: Logger;
    allowOrigins?: string[];
    allowHosts?: string[];
    allowDirectories?: string[];
    limits?: Partial<SidecarLimits>;
    /** `false`: no web chat; a directory: the chat's built assets (default: the package's). */
    web?: false | string;
  } = {},
): SidecarHarness {
  const directory = mkdtempSync(join(tmpdir(), "ocb-sidecar-unit-"));
  const store = SqliteStore.open(":memory:");
  const { bridge, backends, open } = standInBridge(directory, store);
  const stopping = new AbortController();
  const ctx = createSidecarContext(
    {
      bridge,
      token: TOKEN,
      store,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.allowOrigins === undefined ? {} : { allowOrigins: options.allowOrigins }),
      ...(options.allowHosts === undefined ? {} : { allowHosts: options.allowHosts }),
      ...(options.allowDirectories === undefined
        ? {}
        : { allowDirectories: options.allowDirectories }),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.web === false ? { web: false } : {}),
      ...(typeof options.web === "string" ? { webRoot: options.web } : {}),
    },
    stopping.signal,
  );
  ctx.address.port = 80;
  const app = buildApp(ctx);
  return {
    app,
    ctx,
    directory,
    backends,
    stop: () => stopping.abort(),
    async close() {
      stopping.abort();
      ctx.sessions.close();
      await app.close();
      await Promise.all([...open.values()].map((session) => session.close()));
      store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export interface SessionHarness extends SidecarHarness {
  id: string;
  info: SessionInfo;
  backend: InProcessBackend;
  /** POSTs `payload` as JSON to `/v1/sessions/<id><url>`. */
  post(url: string, payload: unknown): Promise<InjectResponse>;
}

/** A harness with one session created through the API, and a `post` to its routes. */
export async function harnessWithSession(
  options: Parameters<typeof sidecarHarness>[0] = {},
): Promise<SessionHarness> {
  const harness = sidecarHarness(options);
  const created = await harness.app.inject({
    method: "POST",
    url: "/v1/sessions",
    headers: JSON_HEADERS,
    payload: { title: "unit" },
  });
  if (created.statusCode !== 201) {
    await harness.close();
    throw new Error(`creating the session answered ${created.statusCode}: ${created.body}`);
  }
  const info = SessionInfoSchema.parse(created.json());
  const backend = harness.backends.get(info.id);
  if (backend === undefined) throw new Error("no backend");
  const post = (url: string, payload: unknown) =>
    harness.app.inject({
      method: "POST",
      url: `/v1/sessions/${info.id}${url}`,
      headers: JSON_HEADERS,
      payload: JSON.stringify(payload),
    });
  return { ...harness, id: info.id, info, backend, post };
}

/**
 * `withSession(options)`: a harness with a session, closed after each test of the file that
 * calls this (at its top level).
 */
export function sessionHarnesses(): (
  options?: Parameters<typeof sidecarHarness>[0],
) => Promise<SessionHarness> {
  const made: SidecarHarness[] = [];
  afterEach(async () => {
    for (const harness of made.splice(0)) await harness.close();
  });
  return async (options = {}) => {
    const harness = await harnessWithSession(options);
    made.push(harness);
    return harness;
  };
}
