import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { canonical } from "../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../events/canonical.js";
import { MIGRATIONS, type Migration, migrate, schemaVersion } from "./migrations.js";
import { IN_MEMORY, SqliteStore } from "./sqlite-store.js";
import type { SessionRecord } from "./store.js";

const SESSION = "ses_a";

/** A canonical event whose id is `id`. */
function event<T extends CanonicalType>(
  id: string,
  type: T,
  data: CanonicalEventOf<T>["data"],
  sessionId = SESSION,
): CanonicalEvent {
  const origin = {
    sessionId,
    turnId: "turn_in_1",
    at: 1_800_000_000_000,
    native: { backend: "replay" as const, type, id },
  };
  return { ...canonical(origin, 0, type, data), id } as CanonicalEvent;
}

const started = event("e1", "turn.started", { inputId: "in_1" });
const delta = event("e2", "text.delta", { partId: "p1", delta: "hel" });
const ended = event("e3", "text.ended", { partId: "p1", text: "hello" });
const usage = event("e4", "usage.updated", {
  usage: {
    tokens: { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
    cost: 0,
  },
});
const turnEnded = event("e5", "turn.ended", { outcome: "completed", text: "hello" });

const record: SessionRecord = {
  id: SESSION,
  backend: "serve",
  upstreamId: "ses_upstream",
  directory: "/work/project",
  title: "Fix the login bug",
  state: "open",
  createdAt: 1_800_000_000_000,
  updatedAt: 1_800_000_000_500,
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-store-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `use` on a fresh store, closing it after. */
function withStore(use: (store: SqliteStore) => void, path: string = IN_MEMORY): void {
  const store = SqliteStore.open(path);
  try {
    use(store);
  } finally {
    store.close();
  }
}

describe("SqliteStore events", () => {
  it("numbers durable events from 1 and continues from the session's last seq", () => {
    withStore((store) => {
      expect(store.lastSeq(SESSION)).toBe(0);
      const first = store.append(SESSION, [started, ended]);
      expect(first.map((stored) => [stored.id, stored.seq])).toEqual([
        ["e1", 1],
        ["e3", 2],
      ]);
      const second = store.append(SESSION, [turnEnded]);
      expect(second.map((stored) => stored.seq)).toEqual([3]);
      expect(store.lastSeq(SESSION)).toBe(3);
      expect(store.read(SESSION)).toEqual([...first, ...second]);
      expect(store.read(SESSION)[1]).toEqual({ ...ended, seq: 2 });
    });
  });

  it("keeps only durable events", () => {
    withStore((store) => {
      const stored = store.append(SESSION, [started, delta, ended, usage, turnEnded]);
      expect(stored.map((kept) => kept.type)).toEqual(["turn.started", "text.ended", "turn.ended"]);
      expect(store.read(SESSION).map((kept) => kept.seq)).toEqual([1, 2, 3]);
      expect(store.append(SESSION, [delta, usage])).toEqual([]);
      expect(store.lastSeq(SESSION)).toBe(3);
    });
  });

  it("reads after a seq, at most `limit` events", () => {
    withStore((store) => {
      store.append(SESSION, [started, ended, turnEnded]);
      expect(store.read(SESSION, { after: 1 }).map((kept) => kept.seq)).toEqual([2, 3]);
      expect(store.read(SESSION, { after: 1, limit: 1 }).map((kept) => kept.seq)).toEqual([2]);
      expect(store.read(SESSION, { after: 3 })).toEqual([]);
      expect(store.read(SESSION, { limit: 0 })).toEqual([]);
      expect(store.read("ses_unknown")).toEqual([]);
      expect(() => store.read(SESSION, { after: -1 })).toThrow(UsageError);
      expect(() => store.read(SESSION, { limit: 1.5 })).toThrow(UsageError);
    });
  });

  it("skips events whose id the session already has, keeping their first seq", () => {
    withStore((store) => {
      store.append(SESSION, [started, ended]);
      // A resume re-delivers what was already stored, then something new.
      const again = store.append(SESSION, [started, ended, turnEnded]);
      expect(again.map((stored) => [stored.id, stored.seq])).toEqual([["e5", 3]]);
      expect(store.append(SESSION, [turnEnded, turnEnded])).toEqual([]);
      expect(store.read(SESSION).map((stored) => [stored.id, stored.seq])).toEqual([
        ["e1", 1],
        ["e3", 2],
        ["e5", 3],
      ]);
    });
  });

  it("skips a repeated id within one append", () => {
    withStore((store) => {
      const stored = store.append(SESSION, [started, started, ended]);
      expect(stored.map((kept) => [kept.id, kept.seq])).toEqual([
        ["e1", 1],
        ["e3", 2],
      ]);
    });
  });

  it("numbers each session on its own; the same event id may appear in two sessions", () => {
    withStore((store) => {
      store.append(SESSION, [started, ended]);
      const other = event("e1", "turn.started", {}, "ses_b");
      expect(store.append("ses_b", [other]).map((stored) => stored.seq)).toEqual([1]);
      expect(store.lastSeq(SESSION)).toBe(2);
      expect(store.lastSeq("ses_b")).toBe(1);
    });
  });

  it("refuses an event of another session, storing nothing of the batch", () => {
    withStore((store) => {
      const stray = event("x1", "turn.started", {}, "ses_b");
      expect(() => store.append(SESSION, [started, stray], "c1")).toThrow(
        /belongs to session ses_b, not ses_a/,
      );
      expect(store.lastSeq(SESSION)).toBe(0);
      expect(store.cursor(SESSION)).toBeUndefined();
    });
  });
});

describe("SqliteStore cursor", () => {
  it("saves the upstream cursor with the events, and keeps it until the next one", () => {
    withStore((store) => {
      expect(store.cursor(SESSION)).toBeUndefined();
      store.append(SESSION, [started], "41");
      expect(store.cursor(SESSION)).toBe("41");
      store.append(SESSION, [ended]);
      expect(store.cursor(SESSION)).toBe("41");
      // Only ephemeral events (or only re-deliveries) still move the cursor.
      expect(store.append(SESSION, [delta, started], "43")).toEqual([]);
      expect(store.cursor(SESSION)).toBe("43");
    });
  });

  it("stores neither the events nor the cursor when an event cannot be stored", () => {
    const path = join(dir, "store.db");
    withStore((store) => {
      store.append(SESSION, [started], "1");
      failWhen(path, "events", "NEW.event_id = 'e5'");
      expect(() => store.append(SESSION, [ended, turnEnded], "2")).toThrow(/disk on fire/);
      expect(store.read(SESSION).map((kept) => kept.id)).toEqual(["e1"]);
      expect(store.cursor(SESSION)).toBe("1");
    }, path);
  });

  it("stores none of the events when the cursor cannot be saved", () => {
    const path = join(dir, "store.db");
    withStore((store) => {
      store.append(SESSION, [started], "1");
      failWhen(path, "cursors", "NEW.cursor = '2'");
      expect(() => store.append(SESSION, [ended, turnEnded], "2")).toThrow(/disk on fire/);
      expect(store.read(SESSION).map((kept) => kept.id)).toEqual(["e1"]);
      expect(store.lastSeq(SESSION)).toBe(1);
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
  it("keeps events, cursors and sessions across a reopen, in WAL mode", () => {
    const path = join(dir, "nested", "deeper", "store.db");
    let stored: CanonicalEvent[] = [];
    withStore((store) => {
      stored = store.append(SESSION, [started, delta, ended], "7");
      store.saveSession(record);
    }, path);
    withStore((store) => {
      expect(store.read(SESSION)).toEqual(stored);
      expect(store.lastSeq(SESSION)).toBe(2);
      expect(store.cursor(SESSION)).toBe("7");
      expect(store.session(SESSION)).toEqual(record);
      expect(store.append(SESSION, [turnEnded]).map((kept) => kept.seq)).toEqual([3]);
    }, path);
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    raw.close();
  });
});

describe("SqliteStore sessions", () => {
  it("saves, replaces, lists and deletes session records", () => {
    withStore((store) => {
      expect(store.session(SESSION)).toBeUndefined();
      store.saveSession(record);
      expect(store.session(SESSION)).toEqual(record);

      const { title: _title, upstreamId: _upstreamId, ...bare } = record;
      const released: SessionRecord = {
        ...bare,
        state: "released",
        updatedAt: record.updatedAt + 1,
      };
      store.saveSession(released);
      // Absent optional fields come back absent, not `null` or `undefined`.
      expect(store.session(SESSION)).toStrictEqual(released);

      const older: SessionRecord = { ...record, id: "ses_0", createdAt: record.createdAt - 1 };
      store.saveSession(older);
      expect(store.sessions().map((session) => session.id)).toEqual(["ses_0", SESSION]);

      store.append(SESSION, [started], "9");
      store.deleteSession(SESSION);
      expect(store.session(SESSION)).toBeUndefined();
      expect(store.read(SESSION)).toEqual([]);
      expect(store.cursor(SESSION)).toBeUndefined();
      expect(store.sessions().map((session) => session.id)).toEqual(["ses_0"]);
    });
  });

  it("refuses timestamps that are not whole milliseconds", () => {
    withStore((store) => {
      expect(() => store.saveSession({ ...record, createdAt: 1.5 })).toThrow(UsageError);
    });
  });
});

describe("SqliteStore servers", () => {
  it("remembers a managed server by key until it is deleted", () => {
    withStore((store) => {
      const server = {
        url: "http://127.0.0.1:4096",
        username: "opencode",
        password: "secret",
        pid: 1234,
        root: "/tmp/ocb-opencode-x",
        ownerPid: 99,
        configHash: "abc",
      };
      expect(store.server("managed:serve:/p")).toBeUndefined();
      store.saveServer("managed:serve:/p", server);
      expect(store.server("managed:serve:/p")).toEqual(server);
      store.saveServer("managed:serve:/p", { ...server, pid: 5678 });
      expect(store.server("managed:serve:/p")?.pid).toBe(5678);
      store.deleteServer("managed:serve:/p");
      expect(store.server("managed:serve:/p")).toBeUndefined();
    });
  });
});

describe("SqliteStore schema", () => {
  it("gives a new store the current schema version", () => {
    const path = join(dir, "store.db");
    withStore(() => {}, path);
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
    SqliteStore.open(path).close();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error(`${path} opened`);
}
