/**
 * Sidecars of one cluster in this process, for unit tests on a real Postgres: each with its
 * own store, cluster member (short leases) and stand-in bridge (sessions on the in-process
 * backend, through the real runtime). Not listening (driven with `inject`, at made-up
 * addresses), or `listening` on 127.0.0.1 at the address its leases name (for what goes
 * between sidecars: the delta relay).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { ClusterMember } from "../../src/cluster/cluster-member.js";
import { buildApp } from "../../src/sidecar/app.js";
import type { SidecarContext } from "../../src/sidecar/context.js";
import { SessionInfoSchema } from "../../src/sidecar/protocol/http.js";
import { createSidecarContext } from "../../src/sidecar/sidecar.js";
import type { SidecarApp } from "../../src/sidecar/sidecar-app.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import type { InProcessBackend } from "./in-process-backend.js";
import { freePort } from "./postgres.js";
import { type RecordingLogger, recordingLogger } from "./recording-logger.js";
import { JSON_HEADERS, standInBridge, TOKEN } from "./sidecar-harness.js";

export interface ClusterSidecar {
  holderId: string;
  /** The address its leases name (where it listens, when `listening`). */
  url: string;
  app: SidecarApp;
  ctx: SidecarContext;
  cluster: ClusterMember;
  store: PostgresStore;
  backends: Map<string, InProcessBackend>;
  logger: RecordingLogger;
  /** What `inject` sends: the token, and a `Host` the sidecar answers to. */
  headers: Record<string, string>;
}

/** A sidecar in the cluster of `url`, with short leases; `cleanup` is given what stops it. */
export async function clusterSidecar(
  url: string,
  holderId: string,
  cleanup: (stop: () => Promise<void>) => void,
  options: { listening?: boolean } = {},
): Promise<ClusterSidecar> {
  const directory = mkdtempSync(join(tmpdir(), `ocb-cluster-${holderId}-`));
  const port = options.listening === true ? await freePort() : 80;
  const address =
    options.listening === true ? `http://127.0.0.1:${port}` : `http://${holderId}.test:1`;
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
    { bridge, token: TOKEN, store: cluster.store, cluster, logger, port },
    stopping.signal,
  );
  const app = buildApp(ctx);
  if (options.listening === true) await app.listen({ host: "127.0.0.1", port });
  cleanup(async () => {
    stopping.abort();
    ctx.sessions.close();
    await app.close();
    await Promise.all([...open.values()].map((session) => session.detach()));
    await cluster.close();
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const host = options.listening === true ? `127.0.0.1:${port}` : "localhost:80";
  const headers = { ...JSON_HEADERS, host };
  return { holderId, url: address, app, ctx, cluster, store, backends, logger, headers };
}

/** Creates a session on `on` (which then drives it); its id. */
export async function createSessionOn(on: ClusterSidecar, title = "cluster"): Promise<string> {
  const created = await on.app.inject({
    method: "POST",
    url: "/v1/sessions",
    headers: on.headers,
    payload: { title },
  });
  expect(created.statusCode, created.body).toBe(201);
  return SessionInfoSchema.parse(created.json()).id;
}
