/**
 * Sidecars of one cluster in the test's own process (a real Postgres; sessions on the
 * in-process backend, so no OpenCode), with short leases. Not listening, each has a made-up
 * address (`http://<id>.test:1`); listening (`listen: true`), each is on a free loopback port
 * that is its cluster address, so that commands can be forwarded between them over HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { ClusterMember } from "../../src/cluster/cluster-member.js";
import { findFreePort } from "../../src/server/free-port.js";
import { buildApp } from "../../src/sidecar/app.js";
import type { SidecarContext } from "../../src/sidecar/context.js";
import { SessionInfoSchema } from "../../src/sidecar/protocol/http.js";
import { createSidecarContext } from "../../src/sidecar/sidecar.js";
import type { SidecarApp } from "../../src/sidecar/sidecar-app.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import type { InProcessBackend } from "./in-process-backend.js";
import { type RecordingLogger, recordingLogger } from "./recording-logger.js";
import { AUTH, JSON_HEADERS, standInBridge, TOKEN } from "./sidecar-harness.js";
import { usePostgres } from "./use-postgres.js";

export interface ClusterSidecar {
  holderId: string;
  /** Its cluster address. */
  address: string;
  /** The token and a Host of its own: what `inject()` needs (`json`: with a JSON content type). */
  headers: { auth: Record<string, string>; json: Record<string, string> };
  app: SidecarApp;
  ctx: SidecarContext;
  cluster: ClusterMember;
  store: PostgresStore;
  backends: Map<string, InProcessBackend>;
  logger: RecordingLogger;
}

/**
 * Vitest hooks for a file of cluster tests: a Postgres for the file, and after each test, its
 * `cleanups` run in reverse order (the sidecars it started stop; a test may add its own).
 */
export function useClusterSidecars() {
  const postgres = usePostgres();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    freshDatabase: () => postgres.freshDatabase(),
    /** A sidecar in the cluster of `url` (see `clusterSidecar`), stopped after the test. */
    sidecar: (url: string, holderId: string, options: { listen?: boolean } = {}) =>
      clusterSidecar(url, holderId, cleanups, options),
  };
}

/**
 * A sidecar in the cluster of `url`, with short leases; `cleanups` gets what stops it (run
 * them in reverse order).
 */
export async function clusterSidecar(
  url: string,
  holderId: string,
  cleanups: (() => Promise<unknown>)[],
  options: { listen?: boolean } = {},
): Promise<ClusterSidecar> {
  const directory = mkdtempSync(join(tmpdir(), `ocb-cluster-${holderId}-`));
  const port = options.listen === true ? await findFreePort("127.0.0.1") : 80;
  const address =
    options.listen === true ? `http://127.0.0.1:${port}` : `http://${holderId}.test:1`;
  const store = await PostgresStore.open(url);
  const logger = recordingLogger();
  const cluster = await ClusterMember.join(url, store, {
    holderId,
    address,
    ttlMs: 1_000,
    renewEveryMs: 200,
    pollEveryMs: 200,
  });
  const { bridge, backends, open } = standInBridge(directory, cluster.store);
  const stopping = new AbortController();
  const ctx = createSidecarContext(
    { bridge, token: TOKEN, store: cluster.store, cluster, logger },
    stopping.signal,
  );
  ctx.address.port = port;
  const app = buildApp(ctx);
  if (options.listen === true) await app.listen({ host: "127.0.0.1", port });
  let closed = false;
  cleanups.push(async () => {
    if (closed) return;
    closed = true;
    stopping.abort();
    ctx.sessions.close();
    await app.close();
    await Promise.all([...open.values()].map((session) => session.detach()));
    await cluster.close();
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const auth = { ...AUTH, host: `127.0.0.1:${port}` };
  const headers = { auth, json: { ...JSON_HEADERS, host: auth.host } };
  return { holderId, address, headers, app, ctx, cluster, store, backends, logger };
}

/** Creates a session on `on` (which drives it then); gives its id. */
export async function createClusterSession(on: ClusterSidecar): Promise<string> {
  const created = await on.app.inject({
    method: "POST",
    url: "/v1/sessions",
    headers: on.headers.json,
    payload: { title: "cluster" },
  });
  expect(created.statusCode, created.body).toBe(201);
  return SessionInfoSchema.parse(created.json()).id;
}

/** `POST /v1/sessions/:id/inputs` on `on`, queued, with `extra` fields (an idempotencyKey). */
export function sendTo(on: ClusterSidecar, id: string, text: string, extra: object = {}) {
  return on.app.inject({
    method: "POST",
    url: `/v1/sessions/${id}/inputs`,
    headers: on.headers.json,
    payload: { text, delivery: "queue", ...extra },
  });
}
