/**
 * What a device keeps of a pairing: where the sidecar is (its relays and id), the sidecar's
 * static key (the only one it accepts), and its own key pair. It is the device's credential:
 * keep it where the device keeps secrets (a 0600 file, the browser's storage of this origin).
 */
import { z } from "zod";
import { type NoiseKeyPair, noiseKeyPairFromSecret } from "../noise/index.js";
import { fromBase64url, toBase64url } from "../util/base64url.js";
import { isRelayUrl } from "./pairing-link.js";
import { RemoteAccessError } from "./remote-errors.js";

export interface PairedSidecar {
  readonly relays: readonly string[];
  readonly sidecarId: string;
  readonly sidecarKey: Uint8Array;
  readonly deviceKey: NoiseKeyPair;
  readonly deviceId: string;
}

const KEY = z.string().regex(/^[A-Za-z0-9_-]{43}$/);
const PairedSidecarJson = z.object({
  version: z.literal(1),
  relays: z.array(z.string().refine(isRelayUrl, "a ws:// or wss:// URL")).min(1).max(4),
  sidecarId: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  sidecarKey: KEY,
  deviceSecretKey: KEY,
  deviceId: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
});
export type PairedSidecarJson = z.infer<typeof PairedSidecarJson>;

export function pairedSidecarToJson(paired: PairedSidecar): PairedSidecarJson {
  return {
    version: 1,
    relays: [...paired.relays],
    sidecarId: paired.sidecarId,
    sidecarKey: toBase64url(paired.sidecarKey),
    deviceSecretKey: toBase64url(paired.deviceKey.secretKey),
    deviceId: paired.deviceId,
  };
}

/** A kept pairing read back, or a RemoteAccessError saying it is not one. */
export function pairedSidecarFromJson(value: unknown): PairedSidecar {
  const parsed = PairedSidecarJson.safeParse(value);
  const sidecarKey = parsed.success ? fromBase64url(parsed.data.sidecarKey) : undefined;
  const deviceSecret = parsed.success ? fromBase64url(parsed.data.deviceSecretKey) : undefined;
  if (!parsed.success || sidecarKey === undefined || deviceSecret === undefined) {
    throw new RemoteAccessError(
      "bad-link",
      "the kept pairing is not one (edited or of another version): pair this device again",
    );
  }
  return {
    relays: parsed.data.relays,
    sidecarId: parsed.data.sidecarId,
    sidecarKey,
    deviceKey: noiseKeyPairFromSecret(deviceSecret),
    deviceId: parsed.data.deviceId,
  };
}
