/**
 * Sidecars of one cluster in the test's own process, for unit tests on a real Postgres: each
 * with its own store, cluster member (short leases) and stand-in bridge (sessions on the
 * in-process backend, through the real runtime; no OpenCode: test/e2e/sidecar-cluster*.test.ts
 * have the real one). Not listening, each is driven with `inject()` at a made-up address
 * (`http://<id>.test:1`); listening (`listen: true`), each is on a free loopback port that is
 * its cluster address, for what goes between sidecars (forwarded commands, the delta relay).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { ClusterMember } from "../../src/cluster/cluster-member.js";
import type { ClusterTrustOptions } from "../../src/cluster/sidecar/cluster-trust.js";
import type { SidecarCluster } from "../../src/cluster/sidecar/sidecar-cluster.js";
import { findFreePort } from "../../src/server/free-port.js";
import { buildApp } from "../../src/sidecar/app.js";
import type { SidecarContext } from "../../src/sidecar/context.js";
import { assembleSidecar, type SidecarTls } from "../../src/sidecar/sidecar.js";
import type { SidecarApp } from "../../src/sidecar/sidecar-app.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import { SessionInfoSchema } from "../../src/wire/http.js";
import { CLUSTER_SECRET } from "./cluster-secret.js";
import type { InProcessBackend } from "./in-process-backend.js";
import { type RecordingLogger, recordingLogger } from "./recording-logger.js";
import { AUTH, JSON_HEADERS, standInBridge, TOKEN } from "./sidecar-harness.js";
import { usePostgres } from "./use-postgres.js";

export { CLUSTER_SECRET };

/** What a sidecar sends with a command it forwards (`json`: with a JSON content type). */
export function peerHeaders(host: string): Record<string, string> {
  return {
    authorization: `Bearer ${CLUSTER_SECRET}`,
    "content-type": "application/json",
    "x-ocb-forwarded": "another",
    host,
  };
}

export interface ClusterSidecar {
  holderId: string;
  /** Its cluster address (where it listens, when listening). */
  address: string;
  /** Its sessions' directory (the stand-in bridge's). */
  directory: string;
  /**
   * The token and a Host of its own: what `inject()` needs (`json`: with a JSON content type;
   * `forwarded`: as another sidecar forwards a JSON command, with the cluster secret).
   */
  headers: {
    auth: Record<string, string>;
    json: Record<string, string>;
    forwarded: Record<string, string>;
  };
  app: SidecarApp;
  ctx: SidecarContext;
  cluster: ClusterMember;
  /** Its part in the cluster as its context was given it (the cluster's sessions, their relay). */
  inCluster: SidecarCluster;
  store: PostgresStore;
  backends: Map<string, InProcessBackend>;
  logger: RecordingLogger;
  /** Stops it (idempotent); done by the cleanups otherwise. */
  close(): Promise<void>;
}

export interface ClusterSidecarOptions {
  /** Listen on a free loopback port, which becomes its cluster address. */
  listen?: boolean;
  /** The OpenCode server it says it is attached to (the record of directories). */
  server?: string;
  /** Its sessions' directory (default: a new temp dir, removed on close). */
  directory?: string;
  /** Its lease timing (default: 1 s leases, a heartbeat every 200 ms). */
  lease?: { ttlMs: number; renewEveryMs: number };
  /** Serve https (listening): its cluster address is then `https://127.0.0.1:<port>`. */
  tls?: SidecarTls;
  /** Its cluster trust beyond the secret (`CLUSTER_SECRET` unless given). */
  trust?: Partial<ClusterTrustOptions>;
  /** Directories besides its own where clients may make sessions (`allowDirectories`). */
  allowDirectories?: string[];
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
    sidecar: (url: string, holderId: string, options: ClusterSidecarOptions = {}) =>
      clusterSidecar(url, holderId, cleanups, options),
  };
}

/**
 * A sidecar in the cluster of `url` (1 s leases unless `options.lease`); `cleanups` gets what
 * stops it (run them in reverse order).
 */
export async function clusterSidecar(
  url: string,
  holderId: string,
  cleanups: (() => Promise<unknown>)[],
  options: ClusterSidecarOptions = {},
): Promise<ClusterSidecar> {
  const owned = options.directory === undefined;
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), `ocb-cluster-${holderId}-`));
  const port = options.listen === true ? await findFreePort("127.0.0.1") : 80;
  const scheme = options.tls === undefined ? "http" : "https";
  const address =
    options.listen === true ? `${scheme}://127.0.0.1:${port}` : `http://${holderId}.test:1`;
  const store = await PostgresStore.open(url);
  const logger = recordingLogger();
  const cluster = await ClusterMember.join(url, store, {
    holderId,
    address,
    ...(options.lease ?? { ttlMs: 1_000, renewEveryMs: 200 }),
    pollEveryMs: 200,
    ...(options.server === undefined ? {} : { server: options.server }),
  });
  const { bridge, backends, open } = standInBridge(directory, cluster.store);
  const stopping = new AbortController();
  const { ctx, cluster: inCluster } = assembleSidecar(
    {
      bridge,
      token: TOKEN,
      store: cluster.store,
      cluster,
      clusterTrust: { secret: CLUSTER_SECRET, ...options.trust },
      logger,
      ...(options.tls === undefined ? {} : { tls: options.tls }),
      ...(options.allowDirectories === undefined
        ? {}
        : { allowDirectories: options.allowDirectories }),
    },
    stopping.signal,
  );
  if (inCluster === undefined) throw new Error("the sidecar was assembled outside its cluster");
  ctx.address.port = port;
  const app = buildApp(ctx);
  if (options.listen === true) await app.listen({ host: "127.0.0.1", port });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stopping.abort();
      ctx.sessions.close();
      await app.close();
      await Promise.all([...open.values()].map((session) => session.detach()));
      await cluster.close();
      await store.close();
      if (owned) rmSync(directory, { recursive: true, force: true });
    })();
    return closing;
  };
  cleanups.push(close);
  const auth = { ...AUTH, host: `127.0.0.1:${port}` };
  const headers = {
    auth,
    json: { ...JSON_HEADERS, host: auth.host },
    forwarded: peerHeaders(auth.host),
  };
  return {
    holderId,
    address,
    directory,
    headers,
    app,
    ctx,
    cluster,
    inCluster,
    store,
    backends,
    logger,
    close,
  };
}

/** Creates a session on `on` (which drives it then); gives its id. */
export async function createClusterSession(on: ClusterSidecar, title = "cluster"): Promise<string> {
  const created = await on.app.inject({
    method: "POST",
    url: "/v1/sessions",
    headers: on.headers.json,
    payload: { title },
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
