/**
 * A sidecar's identity towards a relay: an Ed25519 key pair. The relay knows a sidecar by its
 * id, derived from the public key, so that nobody can claim an id without the key: the id is
 * base64url of the first 16 bytes of SHA-256 of the public key (128 bits: no collision to find
 * in practice, and short enough for a URL).
 */
import { createHash, randomBytes } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";

export interface RelayIdentity {
  /** 32 bytes. */
  readonly publicKey: Uint8Array;
  /** 32 bytes: never sent anywhere; the relay never sees it. */
  readonly secretKey: Uint8Array;
}

export function generateRelayIdentity(): RelayIdentity {
  const secretKey = ed25519.utils.randomSecretKey();
  return { publicKey: ed25519.getPublicKey(secretKey), secretKey };
}

/** The identity of a stored 32-byte secret key. */
export function relayIdentityOf(secretKey: Uint8Array): RelayIdentity {
  return { publicKey: ed25519.getPublicKey(secretKey), secretKey };
}

export function sidecarIdOf(publicKey: Uint8Array): string {
  return createHash("sha256").update(publicKey).digest().subarray(0, 16).toString("base64url");
}

/** A sidecar id's shape: 16 bytes in base64url, checked before any lookup or log. */
export const SIDECAR_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** A fresh random token (a challenge, a connection id): 16 bytes in base64url. */
export function randomToken(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * What a sidecar signs to register: bound to the relay's host, so that a relay cannot pass a
 * challenge of another relay to the sidecar and replay its answer there.
 */
export function registrationMessage(relayHost: string, challenge: string): Uint8Array {
  return new TextEncoder().encode(`ocb-relay-register/1|${relayHost}|${challenge}`);
}

/**
 * What a sidecar signs to accept one client connection: the relay chose the connection id at
 * random and forgets it once used, so a signature is good for one data socket only.
 */
export function acceptMessage(
  relayHost: string,
  sidecarId: string,
  connectionId: string,
): Uint8Array {
  return new TextEncoder().encode(`ocb-relay-accept/1|${relayHost}|${sidecarId}|${connectionId}`);
}

export function signRelayMessage(identity: RelayIdentity, message: Uint8Array): string {
  return Buffer.from(ed25519.sign(message, identity.secretKey)).toString("base64url");
}

/** False for anything malformed, never a throw: the input comes from the network. */
export function verifyRelaySignature(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: string,
): boolean {
  try {
    const bytes = Buffer.from(signature, "base64url");
    if (bytes.length !== 64 || publicKey.length !== 32) return false;
    return ed25519.verify(bytes, message, publicKey);
  } catch {
    return false;
  }
}
