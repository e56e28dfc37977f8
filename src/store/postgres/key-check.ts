/** The key check (../encryption/key-check.ts) on a Postgres store, in one transaction. */
import type pg from "pg";
import { checkStoreKeys, type KeyCheckRow } from "../encryption/key-check.js";
import type { RowCodec } from "../encryption/row-codec.js";
import type { StoreKeyring } from "../encryption/store-keys.js";

/** The codec `keyring` opens the store with; a new key's check is written. */
export async function checkPostgresKeys(
  client: pg.ClientBase,
  where: string,
  keyring: StoreKeyring | undefined,
): Promise<RowCodec> {
  await client.query("BEGIN");
  try {
    // Sidecars opening a new database at once with different keys: the first makes it its
    // own, the others then find its key's check and are refused.
    await client.query("LOCK TABLE store_keys IN SHARE ROW EXCLUSIVE MODE");
    const { rows } = await client.query<KeyCheckRow>(
      `SELECT key_id AS "keyId", check_value AS "check" FROM store_keys ORDER BY key_id`,
    );
    const content = await client.query<{ has: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM sessions) AS has",
    );
    const { codec, add } = checkStoreKeys(where, rows, content.rows[0]?.has === true, keyring);
    for (const row of add) {
      await client.query("INSERT INTO store_keys (key_id, check_value) VALUES ($1, $2)", [
        row.keyId,
        row.check,
      ]);
    }
    await client.query("COMMIT");
    return codec;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
