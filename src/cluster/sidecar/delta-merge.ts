/**
 * What a client of a session another sidecar drives receives live: the durable events from
 * the feed (the authority: their order, seqs, no gap, no duplicate, untouched) with the
 * relayed deltas interleaved under the one-process rule (docs/events.md, "Deltas"), by the
 * same `DeltaCatchUp` the `serve` backend uses for its two upstream streams:
 * - a delta that comes before its part's `*.started` waits for it (the relay is faster than
 *   the feed: a delta usually arrives before its part's start is committed and read);
 * - a part's `*.ended` waits, with the durable events after it, until the deltas handed out
 *   join to its value, for a short bounded time (`RELAY_IDLE_MS`): the deltas left the driver
 *   before the end was committed, so they are rarely later than it; past the bound the
 *   missing tail goes out as one delta made from the end;
 * - a delta of a part whose end went out (or whose turn ended) is dropped, and so are the
 *   deltas of a part that began before the relay's subscription was live (its first ones
 *   are lost: the part goes out from its end).
 */

import type { CanonicalEvent } from "../../events/canonical.js";
import { DeltaCatchUp } from "../../events/delta-catch-up.js";
import { AsyncQueue } from "../../util/async-queue.js";
import type { Logger } from "../../util/logger.js";
import type { RelayFollowing, RelaySink } from "./delta-relay.js";

/**
 * How long a part's end waits once no relayed delta of the session came (and at most): the
 * relay is one hop ahead of the feed's commit + NOTIFY + read, so an end that finds deltas
 * missing either gets them within milliseconds or lost them (a relay that broke).
 */
export const RELAY_IDLE_MS = 250;
export const RELAY_MAX_HOLD_MS = 1_000;

/** Relays a session's deltas to a sink until the signal aborts (`DeltaRelay.follow`). */
export type RelayFollow = (sink: RelaySink, signal: AbortSignal) => RelayFollowing;

/**
 * The durable events of `durable` (read until `signal` aborts) merged with the deltas the
 * relay brings. Ends (throws) as `durable` does; the relay's troubles never end it.
 */
export async function* mergeRelayedDeltas(
  durable: (signal: AbortSignal) => AsyncIterable<CanonicalEvent>,
  relay: RelayFollow,
  signal: AbortSignal,
  logger: Logger,
  /** How long an end waits for its deltas (tests make it long, to hold it for sure). */
  bounds: { idleMs: number; maxHoldMs: number } = {
    idleMs: RELAY_IDLE_MS,
    maxHoldMs: RELAY_MAX_HOLD_MS,
  },
): AsyncIterable<CanonicalEvent> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const out = new AsyncQueue<CanonicalEvent>();
  const merge = new DeltaCatchUp((event) => out.push(event), { ...bounds, logger });
  const relaying = relay(
    {
      delta: (event) => merge.push(event),
      // A (re)subscription, or deltas the driver skipped: what was sent meanwhile is lost, so
      // the parts under way stop streaming and end from their value.
      live: () => merge.liveConnected(),
      lost: () => merge.liveConnected(),
    },
    stop.signal,
  );
  const reading = (async () => {
    try {
      for await (const event of durable(stop.signal)) {
        merge.push(event);
        // The session moves: a relay waiting for a driver to appear looks again now.
        relaying.nudge();
      }
      merge.flush();
      out.fail(new FeedEnd());
    } catch (error) {
      merge.flush();
      out.fail(error);
    }
  })();
  try {
    for await (const event of out.read(stop.signal, "a relayed session's events")) yield event;
  } catch (error) {
    if (!(error instanceof FeedEnd)) throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    stop.abort();
    merge.flush();
    await Promise.all([relaying.done, reading]);
  }
}

/** The durable read ended without an error: so does the merge. */
class FeedEnd extends Error {}
