/**
 * The codec of an encrypted store: each event body and session title is stored as
 * `ocb1:<key id>:<base64 of nonce ‖ ciphertext ‖ tag>`, sealed with XChaCha20-Poly1305
 * (@noble/ciphers, audited; no cryptography of our own) under the keyring's newest key, with a
 * random 24-byte nonce per value (192 bits: random nonces never collide in practice, however
 * many values one key seals, unlike AES-GCM's 96).
 *
 * The associated data binds a ciphertext to its row: an event's to its session id, event id,
 * seq and type, a title's to its session id, so that a ciphertext copied or moved to another
 * row (or a row's clear columns changed) fails to decrypt instead of reading as that row's.
 * The key id is bound too, so that relabelling a ciphertext's key fails the same way.
 */
import { randomFillSync } from "node:crypto";
import { xchacha20poly1305 } from "@noble/ciphers/chacha.js";
import { OpencodeBridgeError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { eventOfBody } from "../sqlite-rows.js";
import type { EventRow, RowCodec } from "./row-codec.js";
import type { StoreKey, StoreKeyring } from "./store-keys.js";

/** The prefix of every sealed value: the format's version. */
const SEALED = "ocb1:";
const NONCE_BYTES = 24;

/** What every value sealed with key `keyId` starts with (a rekey looks for the others). */
export function sealedPrefix(keyId: string): string {
  return `${SEALED}${keyId}:`;
}

/** Nonces drawn from the system's CSPRNG a batch at a time (a call per nonce cost ~2 µs). */
class NoncePool {
  readonly #pool = Buffer.alloc(NONCE_BYTES * 1024);
  #next = this.#pool.length;

  take(): Uint8Array {
    if (this.#next === this.#pool.length) {
      randomFillSync(this.#pool);
      this.#next = 0;
    }
    const nonce = this.#pool.subarray(this.#next, this.#next + NONCE_BYTES);
    this.#next += NONCE_BYTES;
    return nonce;
  }
}

export class SealingCodec implements RowCodec {
  readonly writeKeyId: string;
  readonly #write: StoreKey;
  readonly #keys: ReadonlyMap<string, Uint8Array>;
  readonly #nonces = new NoncePool();

  constructor(keyring: StoreKeyring) {
    const newest = keyring.keys[0];
    if (newest === undefined) throw new OpencodeBridgeError("a sealing codec needs a key");
    this.#write = newest;
    this.writeKeyId = newest.id;
    this.#keys = new Map(keyring.keys.map(({ id, key }) => [id, key]));
  }

  /** The ids of the keys it can decrypt with. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  sealEvent(event: CanonicalEvent): string {
    if (event.seq === undefined) throw new OpencodeBridgeError(`event ${event.id} has no seq yet`);
    return this.seal(
      JSON.stringify(event),
      eventContext(event.sessionId, event.id, event.seq, event.type),
    );
  }

  openEvent(row: EventRow, where: string): CanonicalEvent {
    const what = `${where}: event ${row.eventId} (seq ${row.seq})`;
    const plain = this.open(
      row.body,
      eventContext(row.sessionId, row.eventId, row.seq, row.type),
      what,
    );
    return eventOfBody(plain, where);
  }

  sealTitle(sessionId: string, title: string | undefined): string | null {
    return title === undefined ? null : this.seal(title, titleContext(sessionId));
  }

  openTitle(sessionId: string, stored: string | undefined, where: string): string | undefined {
    if (stored === undefined) return undefined;
    return this.open(
      stored,
      titleContext(sessionId),
      `${where}: the title of session ${sessionId}`,
    );
  }

  keyIdOf(stored: string): string | undefined {
    if (!stored.startsWith(SEALED)) return undefined;
    const end = stored.indexOf(":", SEALED.length);
    return end < 0 ? undefined : stored.slice(SEALED.length, end);
  }

  /** `plain` sealed under the newest key, bound to `context`. */
  seal(plain: string, context: string, key: StoreKey = this.#write): string {
    const nonce = this.#nonces.take();
    const sealed = xchacha20poly1305(key.key, nonce, associatedData(key.id, context)).encrypt(
      Buffer.from(plain, "utf8"),
    );
    const bytes = Buffer.concat([nonce, sealed]);
    return `${SEALED}${key.id}:${bytes.toString("base64")}`;
  }

  /**
   * The text `stored` seals, bound to `context`; `what` names the value in the errors, which
   * never carry a key or what was decrypted.
   */
  open(stored: unknown, context: string, what: string): string {
    if (typeof stored !== "string" || !stored.startsWith(SEALED)) {
      // An encrypted store writes nothing in clear: a clear value was put there by hand.
      throw new OpencodeBridgeError(
        `${what} is not encrypted, in an encrypted store: it was written around the store ` +
          "(by hand, or by a bridge without the key); it is not read",
      );
    }
    const keyId = this.keyIdOf(stored);
    const key = keyId === undefined ? undefined : this.#keys.get(keyId);
    if (keyId === undefined || key === undefined) {
      throw new OpencodeBridgeError(
        `${what} was encrypted with key ${keyId ?? "(none named)"}, which is not among the keys ` +
          `given (${this.keyIds.join(", ")}): add that key (OCB_STORE_KEY holds several, ` +
          "newest first)",
      );
    }
    const bytes = Buffer.from(stored.slice(SEALED.length + keyId.length + 1), "base64");
    try {
      const plain = xchacha20poly1305(
        key,
        bytes.subarray(0, NONCE_BYTES),
        associatedData(keyId, context),
      ).decrypt(bytes.subarray(NONCE_BYTES));
      return Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).toString("utf8");
    } catch (error) {
      throw new OpencodeBridgeError(
        `${what} does not decrypt with key ${keyId}: its ciphertext was changed, or moved ` +
          "from another row, or key " +
          `${keyId} is not the key it was written with`,
        { cause: error },
      );
    }
  }
}

/** What an event's ciphertext is bound to: its row's clear columns. */
function eventContext(sessionId: string, eventId: string, seq: number, type: string): string {
  return JSON.stringify(["event", sessionId, eventId, seq, type]);
}

function titleContext(sessionId: string): string {
  return JSON.stringify(["title", sessionId]);
}

/** The context and the key id, as AEAD associated data (JSON: no two tuples write the same). */
function associatedData(keyId: string, context: string): Uint8Array {
  return Buffer.from(`${JSON.stringify(keyId)}${context}`, "utf8");
}
