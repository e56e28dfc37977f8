/** Keys for the encrypted stores' tests: fixed, so that a failure names the same key ids. */
import type { StoreKeyring } from "../../src/store/encryption/store-keys.js";

/** A 32-byte key of repeated `byte`, as the hex `OCB_STORE_KEY` takes. */
export function hexKey(byte: number): string {
  return byte.toString(16).padStart(2, "0").repeat(32);
}

export const K1_TEXT = `k1:${hexKey(0x11)}`;
export const K2_TEXT = `k2:${hexKey(0x22)}`;

/** A keyring of `texts` (`id:hex`), newest first. */
export function keyring(...texts: string[]): StoreKeyring {
  return {
    keys: texts.map((text) => {
      const [id = "", hex = ""] = text.split(":");
      return { id, key: new Uint8Array(Buffer.from(hex, "hex")) };
    }),
  };
}

/** A phrase planted in transcripts and titles, that no byte of the store files may hold. */
export const PLANTED = "purple-elephant-tangerine-4417";
