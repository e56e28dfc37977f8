/**
 * The library's device half of remote access (`src/remote`), as the page uses it: pairing
 * through a relay, the kept pairing, and a `fetch`/`WebSocket` pair for the client through the
 * end-to-end encrypted tunnel. These modules are isomorphic (no Node module: they run here as
 * they do in Node); they are not part of `opencode-bridge/client`, so the page reaches them by
 * relative path, from this one module. Never the sidecar's half (remote-access.ts,
 * device-answer.ts, paired-devices.ts, remote-identity.ts): those are Node's.
 */
import type { BinarySocketConstructor } from "../../../src/remote/binary-socket.js";

export {
  pairDevice,
  type RemoteConnection,
} from "../../../src/remote/device-connection.js";
export {
  type PairedSidecar,
  pairedSidecarFromJson,
  pairedSidecarToJson,
} from "../../../src/remote/paired-sidecar.js";
export {
  isPairingLink,
  type PairingOffer,
  parsePairingLink,
} from "../../../src/remote/pairing-link.js";
export { RemoteAccessError } from "../../../src/remote/remote-errors.js";
export { type RemoteTransport, remoteTransport } from "../../../src/remote/remote-transport.js";

/**
 * The browser's WebSocket as the remote connection's socket type. The cast is for the DOM
 * typings alone: their `send` takes only ArrayBuffer-backed views, the library's type any
 * `Uint8Array`; what the library sends is always ArrayBuffer-backed (Noise output).
 */
export function browserWebSocket(): BinarySocketConstructor {
  // Read when called, not when this module loads: the unit tests that import it run in Node.
  return WebSocket as unknown as BinarySocketConstructor;
}
