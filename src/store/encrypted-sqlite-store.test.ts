/**
 * The SQLite store encrypted at rest (encryption/): the store contract with keys, nothing of a
 * planted phrase in the file or its WAL, clear refusals of a wrong, missing or unexpected key,
 * key rotation, and ciphertexts bound to their rows.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeStoreContract, record, storeEvent } from "../../test/support/store-contract.js";
import { hexKey, K1_TEXT, K2_TEXT, keyring, PLANTED } from "../../test/support/store-keys.js";
import { UsageError } from "../errors.js";
import { rekeyStore } from "./encryption/rekey.js";
import { openStore } from "./open-store.js";
import { IN_MEMORY, SqliteStore } from "./sqlite-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-enc-store-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describeStoreContract("SqliteStore encrypted, in memory", async () =>
  SqliteStore.open(IN_MEMORY, { keyring: keyring(K1_TEXT) }),
);
describeStoreContract("SqliteStore encrypted, on a file", async () =>
  SqliteStore.open(join(dir, "store.db"), { keyring: keyring(K2_TEXT, K1_TEXT) }),
);

const SESSION = "ses_a";
const planted = [
  storeEvent("e1", "turn.started", { inputId: "in_1" }),
  storeEvent("e2", "text.ended", { partId: "p1", text: `the phrase is ${PLANTED}` }),
  storeEvent("e3", "turn.ended", { outcome: "completed", text: `said ${PLANTED}` }),
];
const titled = { ...record, title: `About ${PLANTED}` };

/** Fills the store at `path` with the planted events and title, and closes it. */
async function plant(path: string, keys: string): Promise<void> {
  const store = await openStore(path, { storeKey: keys });
  await store.saveSession(titled);
  await store.append(SESSION, planted, "cursor-1");
  await store.close();
}

/** The error `open` fails with (its message). */
async function openError(open: () => Promise<unknown>): Promise<Error> {
  const error = await open().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error("expected the open to fail");
  return error;
}

describe("an encrypted SQLite store", () => {
  it("keeps no byte of a planted phrase in its file or its WAL, and reads it back", async () => {
    const path = join(dir, "store.db");
    const store = await openStore(path, { storeKey: K1_TEXT });
    await store.saveSession(titled);
    await store.append(SESSION, planted, "cursor-1");
    // Open, before any checkpoint: the rows are in the WAL.
    const files = [path, `${path}-wal`];
    for (const file of files) {
      expect(readFileSync(file).includes(PLANTED), file).toBe(false);
    }
    expect((await store.read(SESSION)).map((event) => event.id)).toEqual(["e1", "e2", "e3"]);
    expect((await store.session(SESSION))?.title).toBe(titled.title);
    await store.close();
    // Closed: checkpointed into the main file.
    expect(readFileSync(path).includes(PLANTED)).toBe(false);
    const again = await openStore(path, { storeKey: K1_TEXT });
    expect(await again.read(SESSION)).toEqual(
      planted.map((event, i) => ({ ...event, seq: i + 1 })),
    );
    expect(await again.sessions()).toEqual([titled]);
    await again.close();
  });

  it("refuses a wrong key, no key, and a key on a plaintext store, saying what to do", async () => {
    const path = join(dir, "store.db");
    await plant(path, K1_TEXT);
    const wrongId = await openError(() => openStore(path, { storeKey: K2_TEXT }));
    expect(wrongId).toBeInstanceOf(UsageError);
    expect(wrongId.message).toMatch(/encrypted with key k1; the keys given hold k2: give the key/);
    const wrongKey = await openError(() => openStore(path, { storeKey: `k1:${hexKey(0x33)}` }));
    expect(wrongKey.message).toMatch(/the key given as k1 is not the key k1 .* was written with/);
    const none = await openError(() => openStore(path));
    expect(none.message).toMatch(
      /is encrypted \(key k1\), and no key was given: give .*OCB_STORE_KEY/,
    );

    const plain = join(dir, "plain.db");
    const store = await openStore(plain);
    await store.saveSession(record);
    await store.close();
    const keyed = await openError(() => openStore(plain, { storeKey: K1_TEXT }));
    expect(keyed.message).toMatch(/is not encrypted, but a key was given: open it without one/);
    for (const error of [wrongId, wrongKey, none, keyed]) {
      for (const key of [hexKey(0x11), hexKey(0x22), hexKey(0x33)]) {
        expect(error.message).not.toContain(key);
      }
    }
  });

  it("reads every event after a rotation: the new key writes, the old one still reads", async () => {
    const path = join(dir, "store.db");
    await plant(path, K1_TEXT);
    const rotated = await openStore(path, { storeKey: `${K2_TEXT},${K1_TEXT}` });
    const more = storeEvent("e4", "text.ended", { partId: "p2", text: "under k2" });
    await rotated.append(SESSION, [more]);
    expect((await rotated.read(SESSION)).map((event) => event.id)).toEqual([
      "e1",
      "e2",
      "e3",
      "e4",
    ]);
    await rotated.close();
    const raw = new Database(path, { readonly: true });
    const keyIds = raw.prepare("SELECT substr(body, 1, 8) FROM events ORDER BY seq").pluck().all();
    raw.close();
    expect(keyIds).toEqual(["ocb1:k1:", "ocb1:k1:", "ocb1:k1:", "ocb1:k2:"]);
    // Without k1, the events it wrote cannot be read, and the error says which key they need.
    const withoutK1 = await openStore(path, { storeKey: K2_TEXT });
    await expect(withoutK1.read(SESSION)).rejects.toThrow(
      /encrypted with key k1, which is not among/,
    );
    await withoutK1.close();
  });

  it("rekeys every event and title to the newest key, in batches; the old key can then go", async () => {
    const path = join(dir, "store.db");
    await plant(path, K1_TEXT);
    const rotating = await openStore(path, { storeKey: `${K2_TEXT},${K1_TEXT}` });
    await rotating.append("ses_b", [
      storeEvent("b1", "turn.started", { inputId: "in_b" }, "ses_b"),
    ]);
    const progress: number[] = [];
    const summary = await rekeyStore(rotating, {
      batch: 2,
      progress: (done) => progress.push(done.events),
    });
    expect(summary).toEqual({ events: 3, titles: 1, keyId: "k2", dropped: ["k1"] });
    // Four rows in batches of two (b1 is under k2 already), an empty third, then the titles.
    expect(progress).toEqual([2, 3, 3, 3]);
    // Again: nothing left to do, and nothing dropped.
    expect(await rekeyStore(rotating)).toEqual({ events: 0, titles: 0, keyId: "k2", dropped: [] });
    await rotating.close();
    const raw = new Database(path, { readonly: true });
    const prefixes = raw
      .prepare(
        "SELECT substr(body, 1, 8) FROM events UNION SELECT substr(title, 1, 8) FROM sessions",
      )
      .pluck()
      .all();
    raw.close();
    expect(prefixes).toEqual(["ocb1:k2:"]);
    const k2Only = await openStore(path, { storeKey: K2_TEXT });
    expect((await k2Only.read(SESSION)).map((event) => event.id)).toEqual(["e1", "e2", "e3"]);
    expect((await k2Only.session(SESSION))?.title).toBe(titled.title);
    await k2Only.close();
    // k1 alone no longer opens it: its check is gone.
    await expect(openStore(path, { storeKey: K1_TEXT })).rejects.toThrow(/encrypted with key k2/);
  });

  it("refuses to rekey a plaintext store", async () => {
    const store = await openStore(join(dir, "plain.db"));
    await expect(rekeyStore(store)).rejects.toThrow(
      /is not encrypted, or was opened without its key/,
    );
    await store.close();
  });

  it("fails to read a ciphertext moved to another row, naming the event", async () => {
    const path = join(dir, "store.db");
    await plant(path, K1_TEXT);
    const raw = new Database(path);
    raw.exec(`
      UPDATE events SET body = (SELECT body FROM events WHERE seq = 3) WHERE seq = 2;
      UPDATE sessions SET title = (SELECT body FROM events WHERE seq = 1);
    `);
    raw.close();
    const store = await openStore(path, { storeKey: K1_TEXT });
    await expect(store.read(SESSION)).rejects.toThrow(
      /session ses_a: event e2 \(seq 2\) does not decrypt with key k1: its ciphertext was changed, or moved/,
    );
    await expect(store.read(SESSION, { limit: 1 })).resolves.toHaveLength(1);
    await expect(store.session(SESSION)).rejects.toThrow(
      /the title of session ses_a does not decrypt/,
    );
    await store.close();
  });

  it("refuses an event written in clear into an encrypted store", async () => {
    const path = join(dir, "store.db");
    await plant(path, K1_TEXT);
    const raw = new Database(path);
    raw
      .prepare("UPDATE events SET body = ? WHERE seq = 1")
      .run(JSON.stringify({ ...planted[0], seq: 1 }));
    raw.close();
    const store = await openStore(path, { storeKey: K1_TEXT });
    await expect(store.read(SESSION)).rejects.toThrow(
      /event e1 \(seq 1\) is not encrypted, in an encrypted store/,
    );
    await store.close();
  });

  it("takes the keys from an async hook (a KMS)", async () => {
    const path = join(dir, "store.db");
    await plant(path, K1_TEXT);
    const store = await openStore(path, { storeKey: async () => keyring(K1_TEXT) });
    expect(await store.lastSeq(SESSION)).toBe(3);
    await store.close();
  });
});
