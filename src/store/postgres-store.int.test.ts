/**
 * What only the Postgres store has to show (the shared guarantees are the store contract's,
 * postgres-contract.int.test.ts): two processes' stores appending to one session never share a seq
 * and leave no hole; the schema is made on an empty database, and a newer one is refused; a
 * server that cannot be reached or refuses the login fails with a clear error, bounded, that
 * never shows the password.
 */
import { createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { publicTables } from "../../test/support/postgres.js";
import { usePostgres } from "../../test/support/use-postgres.js";
import { OpencodeBridgeError, UsageError } from "../errors.js";
import { canonical } from "../events/build.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { POSTGRES_MIGRATIONS } from "./postgres/migrations.js";
import { PostgresStore } from "./postgres-store.js";

const postgres = usePostgres();
const open: PostgresStore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});

async function openStore(url: string): Promise<PostgresStore> {
  const store = await PostgresStore.open(url);
  open.push(store);
  return store;
}

function textEnded(sessionId: string, id: string): CanonicalEvent {
  const origin = {
    sessionId,
    turnId: "turn_1",
    at: 0,
    native: { backend: "replay" as const, type: "t", id },
  };
  return { ...canonical(origin, 0, "text.ended", { partId: id, text: id }), id } as CanonicalEvent;
}

describe("PostgresStore", () => {
  it("two stores (two pools, as two sidecars) appending to one session never share a seq", async () => {
    const url = await postgres.freshDatabase();
    const [a, b] = [await openStore(url), await openStore(url)];
    const appends: Promise<CanonicalEvent[]>[] = [];
    for (let round = 0; round < 40; round++) {
      // Each call in its own tick for some, several per tick for others: batches of all sizes.
      appends.push(
        a.append("ses_shared", [textEnded("ses_shared", `a${round}`)], `cursor-a${round}`),
      );
      appends.push(
        b.append("ses_shared", [
          textEnded("ses_shared", `b${round}`),
          textEnded("ses_shared", `b${round}x`),
        ]),
      );
      if (round % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const stored = (await Promise.all(appends)).flat();
    const seqs = stored.map((event) => event.seq ?? 0).sort((x, y) => x - y);
    expect(seqs).toEqual(Array.from({ length: 120 }, (_, index) => index + 1));
    const read = await a.read("ses_shared");
    expect(read.map((event) => event.seq)).toEqual(seqs);
    expect(new Set(read.map((event) => event.id)).size).toBe(120);
    expect(await b.lastSeq("ses_shared")).toBe(120);
    // A re-delivery through the other store keeps the first seq.
    expect(await b.append("ses_shared", [textEnded("ses_shared", "a3")])).toEqual([]);
  });

  it("deleting a session deletes its cluster rows too (its lease and its sends' keys)", async () => {
    const url = await postgres.freshDatabase();
    const store = await openStore(url);
    await store.append("ses_gone", [textEnded("ses_gone", "a")]);
    await store.append("ses_kept", [textEnded("ses_kept", "a")]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const session of ["ses_gone", "ses_kept"]) {
        await client.query(
          "INSERT INTO leases (session_id, holder, expires_at, token) VALUES ($1, 'a', now(), 1)",
          [session],
        );
        await client.query(
          "INSERT INTO sends (session_id, key, fingerprint, holder, token) VALUES ($1, 'k', 'f', 'a', 1)",
          [session],
        );
      }
      await store.deleteSession("ses_gone");
      for (const table of ["leases", "sends"]) {
        const { rows } = await client.query<{ session_id: string }>(
          `SELECT session_id FROM ${table} ORDER BY 1`,
        );
        expect(rows.map((row) => row.session_id)).toEqual(["ses_kept"]);
      }
    } finally {
      await client.end();
    }
  });

  it("makes its schema on an empty database, and opening again changes nothing", async () => {
    const url = await postgres.freshDatabase();
    expect(await publicTables(url)).toEqual([]);
    await (await openStore(url)).close();
    expect(await publicTables(url)).toEqual([
      "directory_servers",
      "events",
      "heads",
      "leases",
      "schema_version",
      "sends",
      "servers",
      "sessions",
      "store_keys",
    ]);
    const again = await openStore(url);
    await again.append("s", [textEnded("s", "e1")], "c1");
    expect(await again.cursor("s")).toBe("c1");
  });

  it("refuses a database a newer opencode-bridge wrote, saying what to do", async () => {
    const url = await postgres.freshDatabase();
    await (await openStore(url)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const newer = (POSTGRES_MIGRATIONS.at(-1)?.version ?? 0) + 1;
    await client.query(
      "INSERT INTO schema_version (version, description) VALUES ($1, 'from the future')",
      [newer],
    );
    await client.end();
    const refused = PostgresStore.open(url);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(
      new RegExp(
        `schema version ${newer}, but this opencode-bridge knows versions up to ${newer - 1}.*Upgrade`,
      ),
    );
  });

  it("a wrong password fails with a clear UsageError that does not show it", async () => {
    const url = new URL(await postgres.freshDatabase());
    url.password = "not-the-password-7f3a";
    const error = await PostgresStore.open(url.href).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toMatch(
      /cannot open the transcript store postgres:\/\/postgres@127\.0\.0\.1:\d+\/ocb_test_/,
    );
    expect(message).toMatch(/password authentication failed/);
    expect(
      JSON.stringify({
        message,
        stack: (error as Error).stack,
        cause: String((error as Error).cause),
      }),
    ).not.toContain("not-the-password-7f3a");
  });

  it("a server that accepts and never answers fails within the connect bound", async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const opening = PostgresStore.open(`postgres://ocb:secret-9b1c@127.0.0.1:${port}/db`, {
        connectTimeoutMs: 200,
      });
      const error = await opening.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(
        /cannot open the transcript store postgres:\/\/ocb@127\.0\.0\.1:\d+\/db: .*timeout/i,
      );
      expect((error as Error).message).not.toContain("secret-9b1c");
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("a connection the server ends during an append fails that append, not the process", async () => {
    const url = await postgres.freshDatabase();
    const store = await openStore(url);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await store.append("s", [textEnded("s", "e1")]);
      // Hold the session's head so that the append waits inside its transaction, checked out.
      await admin.query("BEGIN");
      await admin.query("SELECT * FROM heads WHERE session_id = 's' FOR UPDATE");
      const appending = store
        .append("s", [textEnded("s", "e2")])
        .catch((caught: unknown) => caught);
      let terminated = false;
      while (!terminated) {
        const { rows } = await admin.query<{ ended: boolean }>(
          `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
           WHERE application_name = 'opencode-bridge' AND wait_event_type = 'Lock'
             AND datname = current_database()`,
        );
        terminated = rows.some((row) => row.ended);
      }
      // Unhandled, the checked-out connection's 'error' event would end the process here.
      const error = await appending;
      expect(error).toBeInstanceOf(OpencodeBridgeError);
      expect((error as Error).message).toMatch(/append failed/);
      await admin.query("ROLLBACK");
      expect((await store.append("s", [textEnded("s", "e2")])).map((event) => event.seq)).toEqual([
        2,
      ]);
    } finally {
      await admin.end();
    }
  });

  it("a statement that outlives its bound fails as a store error, and the store goes on", async () => {
    const url = await postgres.freshDatabase();
    // Migrated first with the default bound: the schema's DDL on a server busy with other
    // files' databases can take longer than the 100 ms this test gives the append.
    await (await PostgresStore.open(url)).close();
    const store = await PostgresStore.open(url, { statementTimeoutMs: 100 });
    open.push(store);
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      // Another process holds the session's head row: the append's lock wait is bounded.
      await store.append("s", [textEnded("s", "e1")]);
      await locker.query("BEGIN");
      await locker.query("SELECT * FROM heads WHERE session_id = 's' FOR UPDATE");
      const error = await store
        .append("s", [textEnded("s", "e2")])
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpencodeBridgeError);
      expect((error as Error).message).toMatch(/append failed: .*statement timeout/);
      await locker.query("ROLLBACK");
      expect((await store.append("s", [textEnded("s", "e2")])).map((event) => event.seq)).toEqual([
        2,
      ]);
    } finally {
      await locker.end();
    }
  });
});
