/**
 * End-to-end clusters: `ocb serve --cluster` processes on one Postgres store, attached to one
 * real `opencode serve` (with the scripted model), as users run them. Each process is in its
 * own group (the suite's leak check knows it); `stopOcbCluster` ends them all.
 */

import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll } from "vitest";
import { findFreePort } from "../../src/server/free-port.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import { CLUSTER_SECRET } from "./cluster-secret.js";
import { type RunningOcb, startOcb } from "./ocb-cli.js";
import { startTestPostgres, type TestPostgres } from "./postgres.js";
import type { RawWsClient } from "./raw-ws.js";
import { type RealServer, startRealServer } from "./real-server.js";
import { callSidecar, subscribeOverWs } from "./sidecar-http.js";

export interface OcbClusterOptions {
  real: RealServer;
  storeUrl: string;
  /** `OCB_TOKEN`, the same for every sidecar of the cluster. */
  token: string;
  /** The safety net on a state to be reached (a cold real server on a loaded machine). */
  boundMs: number;
}

export interface OcbClusterMember {
  id: string;
  cli: RunningOcb;
  url: string;
}

/** The sidecars started, to be stopped at the end. */
export class OcbCluster {
  readonly members: OcbClusterMember[] = [];
  readonly #options: OcbClusterOptions;

  constructor(options: OcbClusterOptions) {
    this.#options = options;
  }

  /**
   * Starts sidecar `id` and waits for its URL. `addressed`: on a free port of its own that is
   * its `--cluster-address` (other sidecars forward commands to it); otherwise on any port,
   * without an address. `tls`: it serves https with these files (PEM) and trusts the CA for
   * the others (its address is then `https://`).
   */
  async start(
    id: string,
    options: { addressed?: boolean; tls?: { cert: string; key: string; ca: string } } = {},
  ): Promise<OcbClusterMember> {
    const { real, storeUrl, token } = this.#options;
    const port = options.addressed === true ? await findFreePort("127.0.0.1") : undefined;
    const scheme = options.tls === undefined ? "http" : "https";
    const addressing =
      port === undefined
        ? []
        : ["--port", String(port), "--cluster-address", `${scheme}://127.0.0.1:${port}`];
    const tls =
      options.tls === undefined
        ? []
        : [
            ...["--tls-cert", options.tls.cert, "--tls-key", options.tls.key],
            ...["--cluster-ca", options.tls.ca],
          ];
    const cli = startOcb(
      [
        "serve",
        "--dir",
        real.directory,
        "--store",
        storeUrl,
        "--cluster",
        "--cluster-id",
        id,
        ...addressing,
        ...tls,
        "--attach",
        real.server.url,
        "--model",
        "demo/demo-1",
        "--no-web",
      ],
      {
        env: {
          OCB_TOKEN: token,
          OCB_ATTACH_PASSWORD: real.server.password ?? "",
          OCB_CLUSTER_SECRET: CLUSTER_SECRET,
        },
      },
    );
    const member: OcbClusterMember = { id, cli, url: "" };
    this.members.push(member);
    const listening = () => /listening on (https?:\/\/\S+)/.exec(cli.stdout)?.[1];
    await this.until(`sidecar ${id}'s URL`, () => listening() !== undefined, member);
    member.url = listening() ?? "";
    return member;
  }

  /** Waits for `ready()`, failing with the output of `watched` when the bound passes. */
  async until(what: string, ready: () => boolean, ...watched: OcbClusterMember[]): Promise<void> {
    const deadline = Date.now() + this.#options.boundMs;
    while (!ready()) {
      if (Date.now() > deadline) {
        const output = watched.map(({ cli }) => `${cli.stdout}\n${cli.stderr}`).join("\n---\n");
        throw new Error(`never reached ${what}:\n${output}`);
      }
      await delay(50);
    }
  }

  /** Stops every sidecar (SIGTERM to its group) and waits for them to exit. */
  async stop(): Promise<void> {
    for (const { cli } of this.members) {
      try {
        process.kill(-cli.pid, "SIGTERM");
      } catch {
        // gone already (killed by the test)
      }
    }
    await Promise.all(this.members.map(({ cli }) => cli.exited));
  }
}

/** What `useOcbCluster` gives a test file once its `beforeAll` ran. */
export interface OcbClusterFixture {
  readonly cluster: OcbCluster;
  /** The cluster's store, opened by the test (to read transcripts). */
  readonly store: PostgresStore;
  /** A JSON call with the token; a non-2xx answer throws, with its body. */
  call(url: string, method: string, path: string, body?: unknown): Promise<unknown>;
  /** A WebSocket to `url` subscribed to the session after `after` (closed after the file). */
  subscribe(url: string, sessionId: string, after: number): Promise<RawWsClient>;
}

/**
 * Vitest hooks for a file of cluster tests: an embedded Postgres with a fresh database, one
 * real `opencode serve`, the store, and the cluster of sidecars the tests start; all stopped
 * after the file (nothing left running).
 */
export function useOcbCluster(options: { token: string; boundMs: number }): OcbClusterFixture {
  let started:
    | { postgres: TestPostgres; real: RealServer; store: PostgresStore; cluster: OcbCluster }
    | undefined;
  const clients: RawWsClient[] = [];
  const parts: Partial<NonNullable<typeof started>> = {};
  beforeAll(async () => {
    parts.postgres = await startTestPostgres();
    const storeUrl = await parts.postgres.freshDatabase();
    parts.real = await startRealServer();
    parts.store = await PostgresStore.open(storeUrl);
    const cluster = new OcbCluster({ ...options, real: parts.real, storeUrl });
    started = { postgres: parts.postgres, real: parts.real, store: parts.store, cluster };
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await started?.cluster.stop();
    await parts.store?.close();
    await parts.real?.close();
    await parts.postgres?.close();
  });
  const ready = () => {
    if (started === undefined) throw new Error("useOcbCluster: it starts in beforeAll");
    return started;
  };
  return {
    get cluster() {
      return ready().cluster;
    },
    get store() {
      return ready().store;
    },
    call: (url, method, path, body) =>
      callSidecar({ url, token: options.token, boundMs: options.boundMs }, method, path, body),
    async subscribe(url, sessionId, after) {
      const client = await subscribeOverWs({ url, token: options.token }, sessionId, after);
      clients.push(client);
      return client;
    },
  };
}
