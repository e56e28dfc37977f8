/**
 * The keys a store is encrypted with (docs/security.md, "The transcript store at rest"): a
 * keyring, newest first. The newest key encrypts what is written; any key of the ring decrypts
 * what was written with it, so that a store can move to a new key (`ocb store rekey`) while
 * what the old key wrote stays readable. The keys are never written to the database, a log or
 * an error message: only their ids are.
 */
import { createHash } from "node:crypto";
import { UsageError } from "../../errors.js";

/** Bytes of every key: XChaCha20-Poly1305 takes 256-bit keys. */
export const STORE_KEY_BYTES = 32;

/** The environment variable that holds the keys (see `parseStoreKeys`). */
export const STORE_KEY_ENV = "OCB_STORE_KEY";

/** One key and the id stored beside what it encrypted. */
export interface StoreKey {
  /** Letters, digits, `.`, `_` and `-`, at most 64: it is stored in clear beside each ciphertext. */
  readonly id: string;
  /** 32 bytes. */
  readonly key: Uint8Array;
}

/** The keys, newest first: `keys[0]` encrypts; each of them decrypts. */
export interface StoreKeyring {
  readonly keys: readonly StoreKey[];
}

/**
 * Where a library caller's keys come from: the text `OCB_STORE_KEY` takes, a keyring, or a
 * function that fetches one (a KMS or a secret manager: it is called once, when the store opens).
 */
export type StoreKeySource = string | StoreKeyring | (() => Promise<StoreKeyring | string>);

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The keyring `text` writes: keys separated by commas, newest first, each `id:key` or a bare
 * key (its id is then `k` and the first 12 hex digits of its SHA-256, so that the same key
 * always has the same id); a key is 32 bytes as 64 hex digits or as base64. `name` says where
 * the text came from, for the errors, which never quote a key.
 */
export function parseStoreKeys(text: string, name: string): StoreKeyring {
  const parts = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length === 0) {
    throw new UsageError(
      `${name} holds no key: give 32 bytes as hex or base64 (openssl rand -hex 32)`,
    );
  }
  const keys = parts.map((part, index) => {
    const colon = part.indexOf(":");
    const key = keyBytes(colon < 0 ? part : part.slice(colon + 1), `${name}'s key #${index + 1}`);
    const id = colon < 0 ? derivedKeyId(key) : part.slice(0, colon);
    if (!KEY_ID.test(id)) {
      throw new UsageError(
        `${name}'s key #${index + 1} has the id ${JSON.stringify(id)}: an id is 1-64 letters, ` +
          "digits, '.', '_' or '-'",
      );
    }
    return { id, key };
  });
  return checkedKeyring({ keys }, name);
}

/** `keyring` checked: at least one key, each of 32 bytes, no id twice. */
export function checkedKeyring(keyring: StoreKeyring, name: string): StoreKeyring {
  if (keyring.keys.length === 0) throw new UsageError(`${name} holds no key`);
  const seen = new Set<string>();
  for (const { id, key } of keyring.keys) {
    if (!KEY_ID.test(id)) throw new UsageError(`${name}: ${JSON.stringify(id)} is not a key id`);
    if (!(key instanceof Uint8Array) || key.length !== STORE_KEY_BYTES) {
      throw new UsageError(`${name}: key ${id} is not ${STORE_KEY_BYTES} bytes`);
    }
    if (seen.has(id)) throw new UsageError(`${name} names key ${id} twice`);
    seen.add(id);
  }
  return keyring;
}

/** The keyring `source` gives (a function is called now). */
export async function resolveStoreKeys(
  source: StoreKeySource,
  name: string,
): Promise<StoreKeyring> {
  const given = typeof source === "function" ? await source() : source;
  return typeof given === "string" ? parseStoreKeys(given, name) : checkedKeyring(given, name);
}

/** The id a key given without one is stored under. */
export function derivedKeyId(key: Uint8Array): string {
  return `k${createHash("sha256").update(key).digest("hex").slice(0, 12)}`;
}

function keyBytes(text: string, name: string): Uint8Array {
  const hex = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : undefined;
  const base64 = /^[A-Za-z0-9+/_-]{43}=?$/.test(text) ? Buffer.from(text, "base64") : undefined;
  const bytes = hex ?? base64;
  if (bytes === undefined || bytes.length !== STORE_KEY_BYTES) {
    // The text itself is not quoted: it may be a key with a typo.
    throw new UsageError(
      `${name} is not ${STORE_KEY_BYTES} bytes as 64 hex digits or base64 ` +
        "(make one with openssl rand -hex 32)",
    );
  }
  return new Uint8Array(bytes);
}
