/** One session's events made by hand the way the store hands them back: durable ones numbered. */
import {
  type CanonicalEvent,
  type CanonicalEventOf,
  type CanonicalType,
  isDurableType,
} from "../../src/events/canonical.js";

export class NumberedEvents {
  readonly events: CanonicalEvent[] = [];
  readonly sessionId: string;
  #seq = 0;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** Appends an event of `type` (in turn `turnId`, if any); returns this, to chain. */
  add<T extends CanonicalType>(type: T, data: CanonicalEventOf<T>["data"], turnId?: string): this {
    const durable = isDurableType(type);
    this.events.push({
      id: `evt_${this.events.length}`,
      ...(durable ? { seq: ++this.#seq } : {}),
      sessionId: this.sessionId,
      ...(turnId === undefined ? {} : { turnId }),
      at: 1_800_000_000_000 + this.events.length,
      type,
      data,
      durable,
    } as CanonicalEvent);
    return this;
  }
}
