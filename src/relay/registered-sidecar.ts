/**
 * What the relay holds of one sidecar: its public key, its control socket while it is online,
 * the clients waiting for it to pick them up, and the pairs it serves. Kept while the control
 * socket is open or a pair runs (a control socket's reconnect does not cut live connections).
 */

import type { EarlyFrames, JoinedPair } from "./joined-pair.js";
import type { WebSocket } from "./relay-ws.js";
import { TokenBucket } from "./token-bucket.js";

export interface PendingClient {
  readonly socket: WebSocket;
  readonly early: EarlyFrames;
  readonly ip: string;
  readonly timer: NodeJS.Timeout;
}

export class RegisteredSidecar {
  control: WebSocket | undefined;
  publicKey: Uint8Array;
  readonly pending = new Map<string, PendingClient>();
  readonly pairs = new Set<JoinedPair>();
  /** Shared by all its pairs: one sidecar's clients together stay within its rate. */
  readonly bucket: TokenBucket;

  constructor(
    readonly id: string,
    publicKey: Uint8Array,
    rate: number,
    burst: number,
  ) {
    this.publicKey = publicKey;
    this.bucket = new TokenBucket(rate, burst);
  }

  get online(): boolean {
    return this.control !== undefined;
  }

  /** Nothing left to keep: offline, no pending client, no pair. */
  get unused(): boolean {
    return this.control === undefined && this.pending.size === 0 && this.pairs.size === 0;
  }
}
