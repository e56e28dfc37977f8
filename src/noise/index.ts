/**
 * The Noise Protocol Framework (rev. 34) for `Noise_{XX,XXpsk0,IK,NN}_25519_ChaChaPoly_SHA256`,
 * on @noble's audited primitives. Isomorphic: Uint8Array only, no Node API.
 */
export type { NoisePattern } from "./handshake-patterns.js";
export {
  generateNoiseKeyPair,
  NOISE_MAX_MESSAGE_LENGTH,
  NOISE_MAX_PLAINTEXT_LENGTH,
  type NoiseKeyPair,
  noiseKeyPairFromSecret,
} from "./noise-crypto.js";
export { NoiseError } from "./noise-error.js";
export { NoiseHandshake, type NoiseHandshakeOptions } from "./noise-handshake.js";
export { NoiseSession } from "./noise-session.js";
