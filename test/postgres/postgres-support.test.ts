/**
 * The tests' Postgres (test/support/postgres.ts): each caller gets an empty database of its own,
 * and a closed server leaves no process behind (as the browser tests check of Chromium); nor
 * does one whose test process is interrupted (SIGINT, SIGTERM) before it closed the server.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  letPostgresReach,
  publicTables,
  startPrivateTestPostgres,
  userNamedPostgres,
} from "../support/postgres.js";
import { isRunning, trackProcess } from "../support/process-tracker.js";

describe("the tests' Postgres", () => {
  it("opens a private checkout's directories to the postgres user (search only)", async () => {
    // A clean clone in a `mktemp -d` directory is 0700: as root, Postgres runs as another
    // user, which could not reach the binaries under it (spawn EACCES, and a hung init).
    const root = mkdtempSync(join(tmpdir(), "ocb-reach-"));
    try {
      const bin = join(root, "node_modules", "pg", "bin");
      mkdirSync(bin, { recursive: true, mode: 0o755 });
      chmodSync(root, 0o700);
      await letPostgresReach(bin);
      expect(statSync(root).mode & 0o777).toBe(0o701);
      expect(statSync(bin).mode & 0o777).toBe(0o755);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("gives each caller a fresh database, and a closed server leaves no process", async () => {
    // A private server: this test stops it (the run's shared one is not a file's to stop).
    const server = await startPrivateTestPostgres();
    try {
      const one = await server.freshDatabase();
      const two = await server.freshDatabase();
      expect(one).not.toBe(two);
      const client = new pg.Client({ connectionString: one, connectionTimeoutMillis: 10_000 });
      await client.connect();
      await client.query("CREATE TABLE t (x int)");
      await client.end();
      expect(await publicTables(one)).toEqual(["t"]);
      expect(await publicTables(two)).toEqual([]);
    } finally {
      await server.close();
    }
    // A server the user named is not ours to stop (and has no pid here).
    if (userNamedPostgres() === undefined) {
      expect(server.pid).toBeTypeOf("number");
      expect(isRunning(server.pid ?? 0)).toBe(false);
    }
  });
});

/** A process that starts the tests' Postgres and never closes it, as an interrupted test. */
function startAbandoning(): {
  pid: Promise<number>;
  exited: Promise<void>;
  kill(signal: NodeJS.Signals): void;
} {
  const script =
    `import { startPrivateTestPostgres } from ${JSON.stringify(new URL("../support/postgres.ts", import.meta.url).href)};` +
    "const server = await startPrivateTestPostgres(); console.log('postgres ' + server.pid);" +
    "setInterval(() => {}, 1000);";
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  trackProcess(child.pid, "node holding a test Postgres (postgres-support.test.ts)");
  let output = "";
  const pid = new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const found = /postgres (\d+)/.exec(output);
      if (found) resolve(Number(found[1]));
    });
    child.on("exit", () => reject(new Error(`exited before starting Postgres: ${output}`)));
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { pid, exited, kill: (signal) => child.kill(signal) };
}

async function gone(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 200 && isRunning(pid); tries++) await delay(25);
  return !isRunning(pid);
}

describe.skipIf(userNamedPostgres() !== undefined)("an interrupted test process", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`takes its embedded Postgres with it on ${signal}`, async () => {
      const child = startAbandoning();
      const pid = await child.pid;
      trackProcess(pid, "postgres of an abandoning child (postgres-support.test.ts)");
      expect(isRunning(pid)).toBe(true);
      child.kill(signal);
      await child.exited;
      expect(await gone(pid)).toBe(true);
    });
  }
});
