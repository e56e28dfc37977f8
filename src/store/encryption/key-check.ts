/**
 * The key check: a known value sealed with each key a store has used, kept in the store's
 * `store_keys` table (key id, sealed value), so that opening a store with a wrong key, without
 * its key, or with a key when it is not encrypted fails at once with an error that says what
 * to do, rather than at the first read. One decision for both stores; each runs it inside a
 * transaction of its own that also writes the rows it returns.
 */
import { UsageError } from "../../errors.js";
import { PLAINTEXT_CODEC, type RowCodec } from "./row-codec.js";
import { SealingCodec } from "./sealing-codec.js";
import type { StoreKeyring } from "./store-keys.js";

/** A `store_keys` row. */
export interface KeyCheckRow {
  keyId: string;
  check: string;
}

/** What a key check seals: nothing secret, only proof that the key opens it. */
const CHECK_VALUE = "opencode-bridge store key check";

const checkContext = (keyId: string): string => JSON.stringify(["key-check", keyId]);

/** How to give the keys, for the errors. */
const HOW_TO_GIVE = "OCB_STORE_KEY or --store-key-file (in a library, openStore's storeKey option)";

export interface KeyCheckOutcome {
  codec: RowCodec;
  /** Rows to write in the same transaction: the check of a key the store had not seen. */
  add: KeyCheckRow[];
}

/**
 * The codec to open a store with, given its `store_keys` rows, whether it already holds
 * sessions or events, and the keys the caller gave (undefined: none). Throws `UsageError`
 * when they do not fit; the message names key ids, never a key.
 */
export function checkStoreKeys(
  where: string,
  rows: readonly KeyCheckRow[],
  hasContent: boolean,
  keyring: StoreKeyring | undefined,
): KeyCheckOutcome {
  if (keyring === undefined) {
    if (rows.length === 0) return { codec: PLAINTEXT_CODEC, add: [] };
    throw new UsageError(
      `the transcript store ${where} is encrypted (key ${idList(rows)}), and no key was given: ` +
        `give the key it was written with in ${HOW_TO_GIVE}`,
    );
  }
  const codec = new SealingCodec(keyring);
  if (rows.length === 0) {
    if (hasContent) {
      throw new UsageError(
        `the transcript store ${where} is not encrypted, but a key was given: open it without ` +
          "one (unset OCB_STORE_KEY, drop --store-key-file). To encrypt its sessions, export " +
          "them (ocb export) and import them (ocb import) into a new store opened with the key",
      );
    }
    // A new store: it is encrypted from now on.
    return { codec, add: [checkRow(codec, codec.writeKeyId)] };
  }
  const given = new Set(codec.keyIds);
  const known = rows.filter((row) => given.has(row.keyId));
  if (known.length === 0) {
    throw new UsageError(
      `the transcript store ${where} is encrypted with key ${idList(rows)}; the keys given hold ` +
        `${codec.keyIds.join(", ")}: give the key it was written with (while moving to a new ` +
        "key, give both, newest first, then run ocb store rekey)",
    );
  }
  for (const row of known) {
    try {
      codec.open(row.check, checkContext(row.keyId), `key ${row.keyId}'s check`);
    } catch {
      throw new UsageError(
        `the key given as ${row.keyId} is not the key ${row.keyId} the transcript store ` +
          `${where} was written with: give the right one in ${HOW_TO_GIVE}`,
      );
    }
  }
  const seen = new Set(rows.map((row) => row.keyId));
  // A new newest key (a rotation begins): checked from now on, as the old ones are.
  const add = seen.has(codec.writeKeyId) ? [] : [checkRow(codec, codec.writeKeyId)];
  return { codec, add };
}

function checkRow(codec: SealingCodec, keyId: string): KeyCheckRow {
  return { keyId, check: codec.seal(CHECK_VALUE, checkContext(keyId)) };
}

function idList(rows: readonly KeyCheckRow[]): string {
  return rows.map((row) => row.keyId).join(", ");
}
