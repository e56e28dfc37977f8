/**
 * What a stream does with an event for a client that is behind, judged by the bytes written to
 * its connection and not yet sent: ephemeral events (deltas, progress) are skipped once it is
 * past the first bound (it is told how many), durable ones never are; past the second bound the
 * connection is closed and the client told to resume from its last seq.
 */
import type { CanonicalEvent } from "../../events/canonical.js";

export interface BacklogBounds {
  /** Past this many unsent bytes, ephemeral events are skipped. */
  dropEphemeralAbove: number;
  /** Past this many, the client is disconnected. */
  disconnectAbove: number;
}

export type BacklogDecision = "send" | "drop" | "disconnect";

/** The decision for `event` when `unsent` bytes wait on the client's connection. */
export function decideForBacklog(
  event: CanonicalEvent,
  unsent: number,
  bounds: BacklogBounds,
): BacklogDecision {
  if (unsent > bounds.disconnectAbove) return "disconnect";
  if (!event.durable && unsent > bounds.dropEphemeralAbove) return "drop";
  return "send";
}

/** The close reason (and SSE goodbye) that tells a slow client where to pick up. */
export function slowConsumerReason(lastSeq: number | undefined): string {
  return lastSeq === undefined
    ? "slow consumer: resume from your last seq"
    : `slow consumer: resume from seq ${lastSeq}`;
}
