/** A session's event stream over a real in-memory EventLog, for tests of the sidecar's streams. */
import { canonical } from "../../src/events/build.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { EventLog } from "../../src/runtime/session/event-log.js";
import type { FeedSource } from "../../src/sidecar/streams/feed-types.js";

export const SESSION = "ses_feed";
let made = 0;

/**
 * A fresh durable (`text.ended`) or ephemeral (`text.delta`) event of part `part` (default: a
 * part of its own, so a delta is of a part that never ends).
 */
export function event(durable: boolean, padding = 0, part?: string): CanonicalEvent {
  const n = ++made;
  const partId = part ?? `part_${n}`;
  const origin = {
    sessionId: SESSION,
    turnId: "turn_1",
    at: n,
    native: { backend: "serve" as const, type: "test", id: `evt_${n}` },
  };
  return durable
    ? canonical(origin, 0, "text.ended", {
        partId,
        text: `text ${n}${"x".repeat(padding)}`,
      })
    : canonical(origin, 0, "text.delta", {
        partId,
        delta: `d${n}${"x".repeat(padding)}`,
      });
}

export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A session over a real event log. `duringKeptRead` runs before each event a subscriber's
 * kept-event read yields (not the feed's own reader, the first read), awaited: events appended
 * there arrive while the kept ones are read.
 */
export class LogSource implements FeedSource {
  readonly id: string;
  readonly log: EventLog;
  reads = 0;
  duringKeptRead: (() => void | Promise<void>) | undefined;
  /** Everything appended, in order, as numbered. */
  readonly appended: CanonicalEvent[] = [];

  constructor(pageSize = 256, id = SESSION) {
    this.id = id;
    this.log = new EventLog({ pageSize });
  }

  get lastSeq(): number {
    return this.log.lastSeq;
  }

  /**
   * Appends a fresh event (`padding` more characters of text, to make it large) of part `part`
   * (default: a part of its own).
   */
  append(durable: boolean, padding = 0, part?: string): CanonicalEvent {
    // An in-memory log hands the event out at once.
    let stored: CanonicalEvent | undefined;
    this.log.append(event(durable, padding, part), undefined, (kept) => {
      stored = kept;
    });
    if (stored === undefined) throw new Error("not appended");
    this.appended.push(stored);
    return stored;
  }

  events(options: { after?: number; signal?: AbortSignal }): AsyncIterable<CanonicalEvent> {
    const read = this.log.read(options.after ?? 0, options.signal);
    const isFeedReader = ++this.reads === 1;
    const during = () => this.duringKeptRead;
    return (async function* () {
      for await (const item of read) {
        const hook = during();
        if (!isFeedReader && hook !== undefined) await hook();
        yield item;
      }
    })();
  }
}
