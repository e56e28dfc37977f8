import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeStoreContract, record, storeEvent } from "../../test/support/store-contract.js";
import { UsageError } from "../errors.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { MIGRATIONS, type Migration, migrate, schemaVersion } from "./migrations.js";
import { IN_MEMORY, SqliteStore } from "./sqlite-store.js";

const SESSION = "ses_a";

const event = storeEvent;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-store-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `use` on a fresh store, closing it after. */
async function withStore(
  use: (store: SqliteStore) => Promise<void>,
  path: string = IN_MEMORY,
): Promise<void> {
  const store = SqliteStore.open(path);
  try {
    await use(store);
  } finally {
    await store.close();
  }
}

describeStoreContract("SqliteStore in memory", async () => SqliteStore.open(IN_MEMORY));
describeStoreContract("SqliteStore on a file", async () => SqliteStore.open(join(dir, "store.db")));

const started = event("e1", "turn.started", { inputId: "in_1" });
const delta = event("e2", "text.delta", { partId: "p1", delta: "hel" });
const ended = event("e3", "text.ended", { partId: "p1", text: "hello" });
const turnEnded = event("e5", "turn.ended", { outcome: "completed", text: "hello" });

describe("SqliteStore cursor", () => {
  it("stores neither the events nor the cursor when an event cannot be stored", async () => {
    const path = join(dir, "store.db");
    await withStore(async (store) => {
      await store.append(SESSION, [started], "1");
      failWhen(path, "events", "NEW.event_id = 'e5'");
      await expect(store.append(SESSION, [ended, turnEnded], "2")).rejects.toThrow(/disk on fire/);
      expect((await store.read(SESSION)).map((kept) => kept.id)).toEqual(["e1"]);
      expect(await store.cursor(SESSION)).toBe("1");
    }, path);
  });

  it("stores none of the events when the cursor cannot be saved", async () => {
    const path = join(dir, "store.db");
    await withStore(async (store) => {
      await store.append(SESSION, [started], "1");
      failWhen(path, "cursors", "NEW.cursor = '2'");
      await expect(store.append(SESSION, [ended, turnEnded], "2")).rejects.toThrow(/disk on fire/);
      expect((await store.read(SESSION)).map((kept) => kept.id)).toEqual(["e1"]);
      expect(await store.lastSeq(SESSION)).toBe(1);
    }, path);
  });
});

/** Makes writes to `table` matching `when` fail, from a second connection (a failing disk). */
function failWhen(path: string, table: string, when: string): void {
  const db = new Database(path);
  for (const operation of ["INSERT", "UPDATE"]) {
    db.exec(
      `CREATE TRIGGER fail_${table}_${operation} BEFORE ${operation} ON ${table}
       WHEN ${when} BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`,
    );
  }
  db.close();
}

describe("SqliteStore file", () => {
  it("keeps events, cursors and sessions across a reopen, in WAL mode", async () => {
    const path = join(dir, "nested", "deeper", "store.db");
    let stored: CanonicalEvent[] = [];
    await withStore(async (store) => {
      stored = await store.append(SESSION, [started, delta, ended], "7");
      await store.saveSession(record);
    }, path);
    await withStore(async (store) => {
      expect(await store.read(SESSION)).toEqual(stored);
      expect(await store.lastSeq(SESSION)).toBe(2);
      expect(await store.cursor(SESSION)).toBe("7");
      expect(await store.session(SESSION)).toEqual(record);
      expect((await store.append(SESSION, [turnEnded])).map((kept) => kept.seq)).toEqual([3]);
    }, path);
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    raw.close();
  });

  it("numbers densely when two connections append to the same session in turn", async () => {
    // Each connection caches the session's last seq; the other's commits must make it read again.
    const path = join(dir, "store.db");
    const one = SqliteStore.open(path);
    const two = SqliteStore.open(path);
    try {
      const seqs: (number | undefined)[] = [];
      for (let round = 0; round < 3; round++) {
        for (const [name, store] of [
          ["one", one],
          ["two", two],
        ] as const) {
          const id = `${name}-${round}`;
          const stored = await store.append(SESSION, [
            event(id, "text.ended", { partId: id, text: "" }),
          ]);
          seqs.push(stored[0]?.seq);
        }
      }
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await one.read(SESSION)).map((kept) => kept.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe("SqliteStore server records", () => {
  it("leaves no byte of a deleted record's password in the file (found by the reliability suite)", async () => {
    // A managed server's record holds its password while the server runs; once the server is
    // stopped and the record deleted, the secrets scan must find it nowhere in the store.
    const path = join(dir, "store.db");
    const password = "server-password-0f3c9a7d2b";
    const server = { url: "http://127.0.0.1:1", username: "opencode", password, pid: 1 };
    await withStore(async (store) => {
      await store.saveServer("managed:serve:/p", { ...server, ownerPid: 2, configHash: "h" });
      await store.saveServer("managed:serve:/p", { ...server, ownerPid: 3, configHash: "h" });
      await store.saveSession(record);
      await store.deleteServer("managed:serve:/p");
    }, path);
    const files = readdirSync(dir).filter((name) => name.startsWith("store.db"));
    for (const file of files) {
      expect(readFileSync(join(dir, file)).includes(password), file).toBe(false);
    }
  });
});

describe("SqliteStore schema", () => {
  it("gives a new store the current schema version", async () => {
    const path = join(dir, "store.db");
    await withStore(async () => {}, path);
    const raw = new Database(path, { readonly: true });
    expect(schemaVersion(raw)).toBe(MIGRATIONS.at(-1)?.version);
    raw.close();
  });

  it("numbers its migrations 1, 2, 3, …", () => {
    expect(MIGRATIONS.map((migration) => migration.version)).toEqual(
      MIGRATIONS.map((_, index) => index + 1),
    );
  });

  it("refuses a store written by a newer version, and leaves it alone", () => {
    const path = join(dir, "store.db");
    const raw = new Database(path);
    raw.pragma("user_version = 99");
    raw.close();
    expect(() => SqliteStore.open(path)).toThrow(UsageError);
    expect(() => SqliteStore.open(path)).toThrow(
      new RegExp(
        `has schema version 99, but this opencode-bridge knows versions up to ${MIGRATIONS.length}: a newer opencode-bridge wrote it\\. Upgrade`,
      ),
    );
    const after = new Database(path, { readonly: true });
    expect(schemaVersion(after)).toBe(99);
    after.close();
  });

  it("applies pending migrations in one transaction: a failing one leaves the old schema", () => {
    const db = new Database(IN_MEMORY);
    const failing: Migration = {
      version: MIGRATIONS.length + 1,
      description: "fails half-way",
      up(target) {
        target.exec("CREATE TABLE extra (id TEXT)");
        throw new Error("migration bug");
      },
    };
    expect(() => migrate(db, "test", [...MIGRATIONS, failing])).toThrow(/migration bug/);
    expect(schemaVersion(db)).toBe(0);
    expect(db.prepare("SELECT count(*) FROM sqlite_schema").pluck().get()).toBe(0);
    migrate(db, "test", MIGRATIONS);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    db.close();
  });
});

describe("SqliteStore.open", () => {
  it("refuses a path under a regular file, saying what and how to fix it", () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    const path = join(file, "store.db");
    const error = openError(path);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message.startsWith(`cannot open the transcript store ${path}: `)).toBe(true);
    expect(error.message).toMatch(/(EEXIST|ENOTDIR).*\. Give the path of a SQLite file/);
    expect(error.cause).toBeDefined();
  });

  it("refuses a directory", () => {
    const path = join(dir, "a-directory");
    mkdirSync(path);
    expect(openError(path).message).toMatch(/^cannot open the transcript store .*unable to open/);
  });

  it("refuses a file that is not a SQLite database", () => {
    const path = join(dir, "notes.txt");
    writeFileSync(path, "these are not the pages you are looking for\n".repeat(200));
    expect(openError(path).message).toMatch(
      /^cannot open the transcript store .*notes\.txt: file is not a database.*\. Give the path/,
    );
  });
});

function openError(path: string): Error {
  try {
    void SqliteStore.open(path).close();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error(`${path} opened`);
}
