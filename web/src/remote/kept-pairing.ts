/**
 * The browser's pairing with a sidecar, kept in this origin's localStorage under
 * `ocb.pairedSidecar` (`pairedSidecarToJson`: the relays, the sidecar's pinned key, and this
 * device's private key). It is this browser's credential for that sidecar, as the token is in
 * direct mode; unlike the token (kept per tab), it outlives the tab, since a device pairs once.
 * Forgetting it removes it here; the sidecar lists the device until `ocb devices revoke`.
 */
import {
  type PairedSidecar,
  pairedSidecarFromJson,
  pairedSidecarToJson,
} from "./remote-library.js";
import { PAIRING_KEY as KEY } from "./remote-start.js";

/** The kept pairing; undefined when there is none, or when what is kept is not one. */
export function keptPairing(): PairedSidecar | undefined {
  const text = localStorage.getItem(KEY);
  if (text === null) return undefined;
  try {
    return pairedSidecarFromJson(JSON.parse(text));
  } catch {
    // Edited, or of another version: as good as none; a new pairing replaces it.
    return undefined;
  }
}

export function keepPairing(paired: PairedSidecar): void {
  localStorage.setItem(KEY, JSON.stringify(pairedSidecarToJson(paired)));
}

export function forgetPairing(): void {
  localStorage.removeItem(KEY);
}
