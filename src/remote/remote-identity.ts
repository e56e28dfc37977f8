/**
 * A sidecar's remote identity: its relay identity (Ed25519, which registers it at relays) and
 * its Noise static key (X25519, which devices pin). Both come from the one 32-byte secret of
 * the relay identity file, the Noise key through HKDF with a label of its own, so one file
 * backs both and no key serves two protocols.
 */
import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { type NoiseKeyPair, noiseKeyPairFromSecret } from "../noise/index.js";
import { type RelayIdentity, sidecarIdOf } from "../relay/relay-identity.js";

export interface RemoteIdentity {
  readonly relay: RelayIdentity;
  readonly noise: NoiseKeyPair;
  readonly sidecarId: string;
}

export function remoteIdentityOf(relay: RelayIdentity): RemoteIdentity {
  const noiseSecret = hkdf(
    sha256,
    relay.secretKey,
    undefined,
    utf8ToBytes("ocb-remote-noise-static/1"),
    32,
  );
  return {
    relay,
    noise: noiseKeyPairFromSecret(noiseSecret),
    sidecarId: sidecarIdOf(relay.publicKey),
  };
}
