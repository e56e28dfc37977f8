import { decrypt, encrypt, MAX_NONCE } from "./noise-crypto.js";
import { NoiseError } from "./noise-error.js";

/**
 * The Noise CipherState (spec section 5.1): a key `k` (or none) and a 64-bit nonce `n`. Without
 * a key it passes plaintext through, as the early handshake messages need.
 */
export class CipherState {
  #k: Uint8Array | undefined;
  #n = 0n;

  constructor(k?: Uint8Array) {
    this.#k = k;
  }

  /** InitializeKey(key): sets the key and resets the nonce. */
  initializeKey(k: Uint8Array): void {
    this.#k = k;
    this.#n = 0n;
  }

  /** HasKey(). */
  hasKey(): boolean {
    return this.#k !== undefined;
  }

  /** EncryptWithAd(ad, plaintext); the nonce advances only once the message is made. */
  encryptWithAd(ad: Uint8Array, plaintext: Uint8Array): Uint8Array {
    if (this.#k === undefined) return plaintext;
    this.#checkNonce();
    const ciphertext = encrypt(this.#k, this.#n, ad, plaintext);
    this.#n += 1n;
    return ciphertext;
  }

  /**
   * DecryptWithAd(ad, ciphertext); throws NoiseError on a bad tag, and then the nonce does not
   * advance (spec 5.1), so the caller decides whether the channel survives.
   */
  decryptWithAd(ad: Uint8Array, ciphertext: Uint8Array): Uint8Array {
    if (this.#k === undefined) return ciphertext;
    this.#checkNonce();
    const plaintext = decrypt(this.#k, this.#n, ad, ciphertext);
    this.#n += 1n;
    return plaintext;
  }

  #checkNonce(): void {
    // 2^64-1 is reserved (spec 5.1): reaching it means every nonce of this key is used up.
    if (this.#n >= MAX_NONCE) {
      throw new NoiseError("the cipher state's nonces are exhausted (2^64-1 is reserved)");
    }
  }

  /** @internal Test hook: sets the nonce, to reach the reserved one without 2^64 messages. */
  setNonceForTest(n: bigint): void {
    this.#n = n;
  }
}
