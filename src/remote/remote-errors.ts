/**
 * The one error of remote access (pairing, connecting through a relay): `reason` says which
 * failure it was, so that a caller can tell a link to fix from a device to pair again from a
 * relay to retry later.
 */
import { OpencodeBridgeError } from "../errors.js";

export type RemoteFailure =
  /** The pairing link is not one (or not of this version). */
  | "bad-link"
  /** No relay of the list reached the sidecar (offline, unknown, or a relay down). */
  | "unreachable"
  /** The handshake failed: a wrong or used pairing secret, an unknown or revoked device, a key that is not the sidecar's. */
  | "refused"
  /** The channel broke: a frame that did not decrypt (altered, replayed, reordered), or a protocol error. */
  | "broken"
  /** No answer within the bound. */
  | "timeout";

export class RemoteAccessError extends OpencodeBridgeError {
  readonly reason: RemoteFailure;

  constructor(reason: RemoteFailure, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.reason = reason;
  }
}
