/**
 * The driver's side of the delta relay: what another sidecar's relay socket (`RELAY_HEADER`
 * on its handshake) is served. Only a session this sidecar drives now (open here), never one
 * it would have to open, adopt or follow from the feed: a relay triggers no takeover and is
 * never relayed further (no loops). And only its ephemeral events: the other sidecar has the
 * durable ones from the store, so nothing is replayed.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import type { Session } from "../../runtime/session/session.js";
import { FeedRequestError, type FeedSource } from "../../sidecar/streams/feed-types.js";

/**
 * A session's ephemeral events from now on. It has no durable events (`lastSeq` 0), so a
 * subscription at `after` 0 is caught up at once and gets only what comes live.
 */
class EphemeralSource implements FeedSource {
  readonly id: string;
  readonly lastSeq = 0;
  readonly #session: Session;

  constructor(session: Session) {
    this.id = session.id;
    this.#session = session;
  }

  async *events(options: { signal?: AbortSignal }): AsyncIterable<CanonicalEvent> {
    const live = this.#session.events({
      after: this.#session.lastSeq,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    for await (const event of live) if (!event.durable) yield event;
  }
}

/** One source per open session, so that every relay of it shares one feed. */
const sources = new WeakMap<Session, EphemeralSource>();

/**
 * What a relay subscription of `sessionId` reads: the ephemeral events of the session this
 * sidecar drives; `not_driver` when it does not drive it (the relay looks the driver up again).
 */
export function relaySource(open: Session | undefined, sessionId: string): FeedSource {
  if (open === undefined) {
    throw new FeedRequestError(
      "not_driver",
      `this sidecar does not drive session ${sessionId}: a relay is served only by its driver ` +
        "(look its lease up again)",
    );
  }
  let source = sources.get(open);
  if (source === undefined) {
    source = new EphemeralSource(open);
    sources.set(open, source);
  }
  return source;
}
