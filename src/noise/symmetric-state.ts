import { CipherState } from "./cipher-state.js";
import { concat, HASHLEN, hash, hkdf } from "./noise-crypto.js";

/**
 * The Noise SymmetricState (spec section 5.2): the chaining key `ck`, the handshake hash `h`
 * and the CipherState that encrypts handshake payloads and static keys.
 */
export class SymmetricState {
  readonly #cipher = new CipherState();
  #ck: Uint8Array;
  #h: Uint8Array;

  /** InitializeSymmetric(protocol_name). */
  constructor(protocolName: string) {
    const name = new TextEncoder().encode(protocolName);
    // A name of up to HASHLEN bytes is zero-padded, a longer one hashed (spec 5.2).
    this.#h =
      name.length <= HASHLEN ? concat(name, new Uint8Array(HASHLEN - name.length)) : hash(name);
    this.#ck = this.#h;
  }

  /** MixKey(input_key_material). */
  mixKey(ikm: Uint8Array): void {
    const [ck, tempK] = hkdf(this.#ck, ikm, 2);
    this.#ck = ck;
    this.#cipher.initializeKey(tempK);
  }

  /** MixHash(data). */
  mixHash(data: Uint8Array): void {
    this.#h = hash(concat(this.#h, data));
  }

  /** MixKeyAndHash(input_key_material): how a psk token enters the state. */
  mixKeyAndHash(ikm: Uint8Array): void {
    const [ck, tempH, tempK] = hkdf(this.#ck, ikm, 3);
    this.#ck = ck;
    this.mixHash(tempH);
    this.#cipher.initializeKey(tempK);
  }

  /** GetHandshakeHash(): a copy of `h`. */
  handshakeHash(): Uint8Array {
    return Uint8Array.from(this.#h);
  }

  /** Whether a key has been mixed in yet (then static keys and payloads are encrypted). */
  hasKey(): boolean {
    return this.#cipher.hasKey();
  }

  /** EncryptAndHash(plaintext). */
  encryptAndHash(plaintext: Uint8Array): Uint8Array {
    const ciphertext = this.#cipher.encryptWithAd(this.#h, plaintext);
    this.mixHash(ciphertext);
    return ciphertext;
  }

  /** DecryptAndHash(ciphertext); throws NoiseError when it does not authenticate. */
  decryptAndHash(ciphertext: Uint8Array): Uint8Array {
    const plaintext = this.#cipher.decryptWithAd(this.#h, ciphertext);
    this.mixHash(ciphertext);
    return plaintext;
  }

  /** Split(): the two transport CipherStates, initiator-to-responder first. */
  split(): [CipherState, CipherState] {
    const [k1, k2] = hkdf(this.#ck, new Uint8Array(0), 2);
    return [new CipherState(k1), new CipherState(k2)];
  }
}
