/**
 * A sidecar of a cluster in the test's own process (not listening; `app.inject()`), with
 * short leases, its sessions on the in-process backend: for the cluster's rules where no
 * OpenCode is involved (test/e2e/sidecar-cluster*.test.ts have the real one).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClusterMember } from "../../src/cluster/cluster-member.js";
import { buildApp } from "../../src/sidecar/app.js";
import type { SidecarContext } from "../../src/sidecar/context.js";
import { createSidecarContext } from "../../src/sidecar/sidecar.js";
import type { SidecarApp } from "../../src/sidecar/sidecar-app.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import type { InProcessBackend } from "./in-process-backend.js";
import { type RecordingLogger, recordingLogger } from "./recording-logger.js";
import { standInBridge, TOKEN } from "./sidecar-harness.js";

export interface ClusterSidecar {
  holderId: string;
  /** Its sessions' directory (the stand-in bridge's). */
  directory: string;
  app: SidecarApp;
  ctx: SidecarContext;
  cluster: ClusterMember;
  store: PostgresStore;
  backends: Map<string, InProcessBackend>;
  logger: RecordingLogger;
  /** Stops it; done by `cleanups` otherwise. */
  close(): Promise<void>;
}

/**
 * A sidecar in the cluster of `url` (1 s leases). `server`: the OpenCode server it says it
 * is attached to (the record of directories); `directory`: its sessions' (default: a new temp
 * dir, removed on close). Its close is pushed onto `cleanups`.
 */
export async function clusterSidecar(
  url: string,
  holderId: string,
  cleanups: (() => Promise<unknown>)[],
  options: { server?: string; directory?: string } = {},
): Promise<ClusterSidecar> {
  const owned = options.directory === undefined;
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), `ocb-cluster-${holderId}-`));
  const store = await PostgresStore.open(url);
  const logger = recordingLogger();
  const cluster = await ClusterMember.join(url, store, {
    holderId,
    address: `http://${holderId}.test:1`,
    ttlMs: 1_000,
    renewEveryMs: 200,
    pollEveryMs: 200,
    ...(options.server === undefined ? {} : { server: options.server }),
  });
  const { bridge, backends, open } = standInBridge(directory, cluster.store);
  const stopping = new AbortController();
  const ctx = createSidecarContext(
    { bridge, token: TOKEN, store: cluster.store, cluster, logger },
    stopping.signal,
  );
  ctx.address.port = 80;
  const app = buildApp(ctx);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stopping.abort();
      ctx.sessions.close();
      await app.close();
      await Promise.all([...open.values()].map((session) => session.detach()));
      await cluster.close({ release: false });
      await store.close();
      if (owned) rmSync(directory, { recursive: true, force: true });
    })();
    return closing;
  };
  cleanups.push(close);
  return { holderId, directory, app, ctx, cluster, store, backends, logger, close };
}
