/**
 * The remote handshake's framing, shared by the device and the sidecar. The device speaks
 * first; its first message says which handshake follows:
 *
 * - `PAIR` (Noise XXpsk0): `[1][pairing id, 22 bytes][Noise message 1]`. The psk is the
 *   pairing's one-time secret, so only the link's holder gets past message 1; the sidecar's
 *   static key, sent in message 2, must be the one the link pinned; message 3 carries the
 *   device's static key and name. The secret is spent once message 3 authenticates.
 * - `RESUME` (Noise IK): `[2][Noise message 1]`: a paired device, which knows the sidecar's
 *   key, proves its own in one round trip.
 *
 * Both bind the sidecar's id in the prologue (a handshake meant for one sidecar fails on
 * another). After the handshake the sidecar's first transport message is `ready` (the device
 * is accepted); then the tunnel's frames. A refusal closes the socket with `REFUSED_CLOSE`
 * and a reason, which the relay passes on.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { z } from "zod";
import { toBase64url } from "../util/base64url.js";

export const HANDSHAKE_MODE = { pair: 1, resume: 2 } as const;
export const PAIRING_ID_BYTES = 22;

/** The sidecar refused the handshake (bad secret, unknown or revoked device). */
export const REFUSED_CLOSE = 4403;
/** A frame did not decrypt (altered, replayed, reordered) or broke the protocol. */
export const BROKEN_CLOSE = 4400;
/** The device was revoked while connected. */
export const REVOKED_CLOSE = 4410;

const encoder = new TextEncoder();

export function handshakePrologue(sidecarId: string): Uint8Array {
  return encoder.encode(`ocb-remote/1|${sidecarId}`);
}

/** A device's id: base64url of the first 16 bytes of SHA-256 of its static public key. */
export function deviceIdOf(publicKey: Uint8Array): string {
  return toBase64url(sha256(publicKey).subarray(0, 16));
}

/** The device's first message: mode, the pairing id when pairing, then Noise's message 1. */
export function firstMessage(
  mode: "pair" | "resume",
  noiseMessage: Uint8Array,
  pairingId?: string,
): Uint8Array {
  const id = mode === "pair" ? encoder.encode(pairingId ?? "") : new Uint8Array();
  const bytes = new Uint8Array(1 + id.length + noiseMessage.length);
  bytes[0] = HANDSHAKE_MODE[mode];
  bytes.set(id, 1);
  bytes.set(noiseMessage, 1 + id.length);
  return bytes;
}

export type FirstMessage =
  | { mode: "pair"; pairingId: string; noiseMessage: Uint8Array }
  | { mode: "resume"; noiseMessage: Uint8Array };

/** The device's first message read, or undefined when it is not one. */
export function readFirstMessage(bytes: Uint8Array): FirstMessage | undefined {
  if (bytes[0] === HANDSHAKE_MODE.resume)
    return { mode: "resume", noiseMessage: bytes.subarray(1) };
  if (bytes[0] !== HANDSHAKE_MODE.pair || bytes.length < 1 + PAIRING_ID_BYTES) return undefined;
  const pairingId = new TextDecoder().decode(bytes.subarray(1, 1 + PAIRING_ID_BYTES));
  if (!/^[A-Za-z0-9_-]{22}$/.test(pairingId)) return undefined;
  return { mode: "pair", pairingId, noiseMessage: bytes.subarray(1 + PAIRING_ID_BYTES) };
}

/** What a pairing device says of itself in message 3. */
export const PairingPayload = z.object({ deviceName: z.string().min(1).max(64) });

/** The sidecar's first transport message: the device is accepted. */
export const ReadyMessage = z.object({ type: z.literal("ready"), deviceId: z.string().max(32) });

export function jsonBytes(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** `bytes` as JSON checked by `schema`, or undefined. */
export function parseJsonBytes<T>(schema: z.ZodType<T>, bytes: Uint8Array): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
