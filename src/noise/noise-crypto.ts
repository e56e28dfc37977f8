/**
 * The cipher suite `25519_ChaChaPoly_SHA256` of the Noise spec (rev. 34, section 4), as thin
 * wrappers over @noble: no primitive is written here, only the spec's framing of them (the
 * nonce layout, HKDF over HMAC-SHA256).
 */
import { chacha20poly1305 } from "@noble/ciphers/chacha.js";
import { equalBytes } from "@noble/ciphers/utils.js";
import { x25519 } from "@noble/curves/ed25519.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { randomBytes } from "@noble/hashes/utils.js";
import { NoiseError } from "./noise-error.js";

/** Length of an X25519 key and of a DH output. */
export const DHLEN = 32;
/** Length of a SHA-256 output, hence of `h`, `ck` and a cipher key. */
export const HASHLEN = 32;
/** Length of a ChaChaPoly authentication tag. */
export const TAGLEN = 16;
/** The longest Noise message, handshake or transport, in bytes (spec section 3). */
export const NOISE_MAX_MESSAGE_LENGTH = 65535;
/** The longest plaintext one transport message can carry: a whole message less its tag. */
export const NOISE_MAX_PLAINTEXT_LENGTH = NOISE_MAX_MESSAGE_LENGTH - TAGLEN;
/** 2^64-1: the spec reserves this nonce, so a CipherState that reaches it is spent. */
export const MAX_NONCE = 0xffff_ffff_ffff_ffffn;

/** The zero-length byte string (the empty associated data of transport messages). */
export const EMPTY = new Uint8Array(0);

/** An X25519 key pair; `secretKey` is the 32 raw bytes (X25519 clamps them when used). */
export interface NoiseKeyPair {
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

/** A fresh X25519 key pair from the platform's CSPRNG (`crypto.getRandomValues`). */
export function generateNoiseKeyPair(): NoiseKeyPair {
  return noiseKeyPairFromSecret(randomBytes(DHLEN));
}

/** The X25519 key pair of a 32-byte secret key (for keys kept between runs). */
export function noiseKeyPairFromSecret(secretKey: Uint8Array): NoiseKeyPair {
  checkKeyLength(secretKey, "secret key");
  return { publicKey: x25519.getPublicKey(secretKey), secretKey: Uint8Array.from(secretKey) };
}

/** Throws unless `key` is a Uint8Array of DHLEN bytes; `what` names it in the message. */
export function checkKeyLength(key: Uint8Array, what: string): void {
  if (!(key instanceof Uint8Array) || key.length !== DHLEN) {
    throw new NoiseError(`the ${what} must be ${DHLEN} bytes`);
  }
}

/**
 * Throws unless `keyPair`'s public key is that of its secret key: a mismatched pair would
 * otherwise fail the handshake later, looking like tampering.
 */
export function checkKeyPair(keyPair: NoiseKeyPair, what: string): void {
  checkKeyLength(keyPair.secretKey, `${what} secret key`);
  checkKeyLength(keyPair.publicKey, `${what} public key`);
  const expected = x25519.getPublicKey(keyPair.secretKey);
  if (!equalBytes(expected, keyPair.publicKey)) {
    throw new NoiseError(`the ${what} key pair's public key is not that of its secret key`);
  }
}

/** DH(key_pair, public_key): X25519. noble refuses a low-order public key (all-zero output). */
export function dh(keyPair: NoiseKeyPair, publicKey: Uint8Array): Uint8Array {
  try {
    return x25519.getSharedSecret(keyPair.secretKey, publicKey);
  } catch (cause) {
    throw new NoiseError("X25519 refused the remote public key (low order or malformed)", {
      cause,
    });
  }
}

/** The 96-bit ChaChaPoly nonce of counter `n`: 4 zero bytes, then `n` as 64-bit little-endian. */
export function chachaNonce(n: bigint): Uint8Array {
  const nonce = new Uint8Array(12);
  new DataView(nonce.buffer).setBigUint64(4, n, true);
  return nonce;
}

/** ENCRYPT(k, n, ad, plaintext): ChaCha20-Poly1305, ciphertext with the tag appended. */
export function encrypt(k: Uint8Array, n: bigint, ad: Uint8Array, plaintext: Uint8Array) {
  return chacha20poly1305(k, chachaNonce(n), ad).encrypt(plaintext);
}

/** DECRYPT(k, n, ad, ciphertext); throws NoiseError when the tag does not verify. */
export function decrypt(k: Uint8Array, n: bigint, ad: Uint8Array, ciphertext: Uint8Array) {
  if (ciphertext.length < TAGLEN) {
    throw new NoiseError(`a ciphertext of ${ciphertext.length} bytes is shorter than its tag`);
  }
  try {
    return chacha20poly1305(k, chachaNonce(n), ad).decrypt(ciphertext);
  } catch (cause) {
    throw new NoiseError("a Noise message failed authentication", { cause });
  }
}

/** HASH(data): SHA-256. */
export function hash(data: Uint8Array): Uint8Array {
  return sha256(data);
}

/**
 * HKDF(chaining_key, input_key_material, num_outputs) as the Noise spec defines it (section
 * 4.3): HMAC-SHA256 with an empty info, so not noble's RFC 5869 `hkdf`, whose framing differs.
 */
export function hkdf(
  chainingKey: Uint8Array,
  ikm: Uint8Array,
  outputs: 2,
): [Uint8Array, Uint8Array];
export function hkdf(
  chainingKey: Uint8Array,
  ikm: Uint8Array,
  outputs: 3,
): [Uint8Array, Uint8Array, Uint8Array];
export function hkdf(chainingKey: Uint8Array, ikm: Uint8Array, outputs: 2 | 3): Uint8Array[] {
  const tempKey = hmac(sha256, chainingKey, ikm);
  const output1 = hmac(sha256, tempKey, Uint8Array.of(0x01));
  const output2 = hmac(sha256, tempKey, concat(output1, Uint8Array.of(0x02)));
  if (outputs === 2) return [output1, output2];
  return [output1, output2, hmac(sha256, tempKey, concat(output2, Uint8Array.of(0x03)))];
}

/** The bytes of `parts` one after another. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
