/**
 * A managed server's record in a shared store (a real Postgres) is acted on only when it is
 * one a bridge of this user on this machine could have written: a record written to name an
 * attacker's listener gets no password sent there and no process signalled, and one naming a
 * directory outside the bridge's isolated temp roots never has it deleted. (The new server the
 * bridge then starts cannot start here: its binary is missing on purpose, no OpenCode runs.)
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recordingLogger } from "../../../test/support/recording-logger.js";
import { usePostgres } from "../../../test/support/use-postgres.js";
import { isProcessGroupAlive } from "../../server/process-group.js";
import { PostgresStore } from "../../store/postgres-store.js";
import type { ServerRecord } from "../../store/store.js";
import { managedServer, managedServerKey } from "./managed-servers.js";
import { serverRecordProblem } from "./server-record-check.js";

const postgres = usePostgres();
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function storeWith(record: ServerRecord, directory: string): Promise<PostgresStore> {
  const store = await PostgresStore.open(await postgres.freshDatabase());
  cleanups.push(() => store.close());
  // As someone with write access to the database would.
  await store.saveServer(managedServerKey("serve", directory), record);
  return store;
}

/** Starts the managed server of `directory` as a bridge does; its binary is missing. */
function startManaged(store: PostgresStore, directory: string) {
  const logger = recordingLogger();
  const started = managedServer(
    store,
    "serve",
    { directory, binary: join(directory, "no-opencode-here"), startupTimeoutMs: 5_000 },
    logger,
  );
  return { started, logger };
}

/** A pid that ran and is gone. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ["-e", ""]);
  if (done.pid === undefined) throw new Error("could not run node");
  return done.pid;
}

/** A process group of its own that a record may name, stopped after the test. */
function liveGroup(): ChildProcess & { pid: number } {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
    detached: true,
    stdio: "ignore",
  });
  if (child.pid === undefined) throw new Error("could not start a process");
  const pid = child.pid;
  cleanups.push(() => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone already
    }
  });
  return child as ChildProcess & { pid: number };
}

describe("a managed server's record from the store", () => {
  it("never has a root outside the bridge's isolated temp roots deleted", async () => {
    const directory = tempDir("ocb-record-project-");
    const outside = tempDir("someones-data-");
    writeFileSync(join(outside, "precious.txt"), "keep me");
    const store = await storeWith(
      {
        url: "http://127.0.0.1:9",
        username: "opencode",
        pid: deadPid(),
        root: outside,
        ownerPid: 0,
        configHash: "another start",
      },
      directory,
    );
    const { started, logger } = startManaged(store, directory);
    await expect(started).rejects.toThrow();
    expect(existsSync(join(outside, "precious.txt"))).toBe(true);
    const warning = logger.entries.find((entry) => entry.level === "warn");
    expect(warning?.message).toContain(`its root ${outside} is not a directory this bridge makes`);
  });

  it("never sends the password to, nor signals for, a url off loopback", async () => {
    const directory = tempDir("ocb-record-project-");
    const seen: IncomingHttpHeaders[] = [];
    const listener = createServer((request, response) => {
      seen.push(request.headers);
      response
        .writeHead(200, { "content-type": "application/json" })
        .end('{"healthy":true,"version":"1.18.33"}');
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => listener.close(resolve)));
    const address = listener.address();
    if (address === null || typeof address === "string") throw new Error("not listening");
    // Checked first: the listener is reachable at this address.
    const url = `http://0.0.0.0:${address.port}`;
    expect((await fetch(`${url}/probe`)).status).toBe(200);
    seen.length = 0;
    const group = liveGroup();
    const store = await storeWith(
      {
        url,
        username: "opencode",
        password: "the-servers-password",
        pid: group.pid,
        ownerPid: 0,
        configHash: "another start",
      },
      directory,
    );
    const { started, logger } = startManaged(store, directory);
    await expect(started).rejects.toThrow();
    expect(seen).toEqual([]);
    expect(isProcessGroupAlive(group.pid)).toBe(true);
    const warning = logger.entries.find((entry) => entry.level === "warn");
    expect(warning?.message).toContain("is not this machine's loopback");
    expect(warning?.message).not.toContain("the-servers-password");
  });
});

describe("serverRecordProblem", () => {
  const fine = { url: "http://127.0.0.1:4096", pid: 4242 };

  it("takes what a bridge records: a loopback url, an isolated temp root, a keeper's socket", async () => {
    const root = tempDir("ocb-opencode-");
    const keeper = join(tempDir("ocb-keeper-4242-"), "keeper.sock");
    expect(await serverRecordProblem({ ...fine, root, keeper }, {})).toBeUndefined();
    const kept = tempDir("kept-data-");
    expect(await serverRecordProblem({ ...fine, root: kept }, { dataDir: kept })).toBeUndefined();
    const listening = { ...fine, url: "http://10.0.0.5:4096" };
    expect(await serverRecordProblem(listening, { hostname: "10.0.0.5" })).toBeUndefined();
  });

  it("refuses a symlinked root, a nested one, a foreign keeper socket, a pid no group has", async () => {
    const outside = tempDir("someones-data-");
    const link = join(tmpdir(), `ocb-opencode-link-${process.pid}`);
    symlinkSync(outside, link);
    cleanups.push(() => rmSync(link, { force: true }));
    expect(await serverRecordProblem({ ...fine, root: link }, {})).toMatch(/its root/);
    const nested = join(tempDir("someones-"), "ocb-opencode-x");
    mkdirSync(nested);
    expect(await serverRecordProblem({ ...fine, root: nested }, {})).toMatch(/its root/);
    expect(await serverRecordProblem({ ...fine, keeper: "/var/run/docker.sock" }, {})).toMatch(
      /keeper socket/,
    );
    for (const pid of [0, 1, -5, 1.5]) {
      expect(await serverRecordProblem({ ...fine, pid }, {})).toMatch(/pid/);
    }
    for (const url of ["http://user:pw@127.0.0.1:1", "http://127.0.0.1:1/x", "file:///"]) {
      expect(await serverRecordProblem({ ...fine, url }, {})).toMatch(/url/);
    }
  });
});
