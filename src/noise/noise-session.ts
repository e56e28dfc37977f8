import type { CipherState } from "./cipher-state.js";
import { EMPTY, NOISE_MAX_MESSAGE_LENGTH, NOISE_MAX_PLAINTEXT_LENGTH } from "./noise-crypto.js";
import { NoiseError } from "./noise-error.js";

/**
 * The transport phase of a completed handshake: one CipherState per direction. Messages must
 * arrive in order, each once: a message that fails to decrypt (tampered, replayed, reordered,
 * truncated) breaks the session for good, and every later call throws.
 */
export class NoiseSession {
  readonly #send: CipherState;
  readonly #receive: CipherState;
  #broken = false;
  /** The handshake hash of the handshake that made this session, for channel binding. */
  readonly handshakeHash: Uint8Array;

  /** @internal Made by `NoiseHandshake.split()`. */
  constructor(send: CipherState, receive: CipherState, handshakeHash: Uint8Array) {
    this.#send = send;
    this.#receive = receive;
    this.handshakeHash = handshakeHash;
  }

  /** True once a failure has ended the session. */
  get broken(): boolean {
    return this.#broken;
  }

  /** Encrypts one transport message; `plaintext` is at most NOISE_MAX_PLAINTEXT_LENGTH bytes. */
  encrypt(plaintext: Uint8Array): Uint8Array {
    this.#checkUsable();
    if (plaintext.length > NOISE_MAX_PLAINTEXT_LENGTH) {
      // The caller's mistake, caught before the nonce moves: the session stays usable.
      throw new NoiseError(
        `a plaintext of ${plaintext.length} bytes is over the ${NOISE_MAX_PLAINTEXT_LENGTH} one Noise transport message carries`,
      );
    }
    return this.#breakingOnFailure(() => this.#send.encryptWithAd(EMPTY, plaintext));
  }

  /** Decrypts the next transport message; any failure throws NoiseError and breaks the session. */
  decrypt(ciphertext: Uint8Array): Uint8Array {
    this.#checkUsable();
    return this.#breakingOnFailure(() => {
      if (ciphertext.length > NOISE_MAX_MESSAGE_LENGTH) {
        throw new NoiseError(
          `a transport message of ${ciphertext.length} bytes is over the ${NOISE_MAX_MESSAGE_LENGTH} Noise allows`,
        );
      }
      return this.#receive.decryptWithAd(EMPTY, ciphertext);
    });
  }

  #checkUsable(): void {
    if (this.#broken) throw new NoiseError("the Noise session broke on an earlier failure");
  }

  #breakingOnFailure<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      this.#broken = true;
      if (error instanceof NoiseError) throw error;
      throw new NoiseError("the Noise transport failed", { cause: error });
    }
  }
}
