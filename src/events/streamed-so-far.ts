/**
 * The text streamed so far into each text, reasoning and tool-input part that has not ended,
 * from the deltas handed out: what a reader that joins mid-part is given first, as one delta
 * per part, so that the deltas it gets still join to the part's value (docs/events.md,
 * "Deltas"). Deltas are live-only and the `*.ended` carries the whole value, so without this a
 * page opened mid-part (a reload, a second tab) showed nothing of what had streamed until the
 * part ended. It holds only the parts under way: a part is forgotten at its end, or at its
 * turn's end (no delta comes after either).
 */
import type { CanonicalEvent, CanonicalEventOf } from "./canonical.js";

type DeltaEvent =
  | CanonicalEventOf<"text.delta">
  | CanonicalEventOf<"reasoning.delta">
  | CanonicalEventOf<"tool.input.delta">;

/** What marks a delta made here rather than read upstream (`native.type`). */
export const CATCH_UP_SOURCE = "runtime.catch-up";

interface Streaming {
  /** The part's latest delta: the envelope of the one made from them all. */
  last: DeltaEvent;
  text: string;
}

export class StreamedSoFar {
  /** By part (`text:<partId>`, `reasoning:<partId>`, `tool:<callId>`), in the order they began. */
  readonly #parts = new Map<string, Streaming>();

  /** Folds in an event handed out: a delta grows its part, a part's or its turn's end drops it. */
  fold(event: CanonicalEvent): void {
    switch (event.type) {
      case "text.delta":
      case "reasoning.delta":
      case "tool.input.delta":
        this.#grow(event);
        return;
      case "text.ended":
        this.#parts.delete(`text:${event.data.partId}`);
        return;
      case "reasoning.ended":
        this.#parts.delete(`reasoning:${event.data.partId}`);
        return;
      case "tool.input.ended":
      case "tool.called":
      case "tool.succeeded":
      case "tool.failed":
        this.#parts.delete(`tool:${event.data.callId}`);
        return;
      case "turn.ended":
        for (const [key, part] of this.#parts) {
          if (part.last.turnId === event.turnId) this.#parts.delete(key);
        }
        return;
      default:
        return;
    }
  }

  /**
   * One delta per part under way, carrying all its text so far, in the order the parts began
   * streaming: what a reader joining now is handed before the deltas that follow.
   */
  catchUp(): CanonicalEvent[] {
    return [...this.#parts.values()].map(({ last, text }) => madeFrom(last, text));
  }

  /** How many parts are under way (for tests of its bound). */
  get size(): number {
    return this.#parts.size;
  }

  #grow(event: DeltaEvent): void {
    const key =
      event.type === "tool.input.delta"
        ? `tool:${event.data.callId}`
        : `${event.type === "text.delta" ? "text" : "reasoning"}:${event.data.partId}`;
    const part = this.#parts.get(key);
    if (event.data.delta === "" && part === undefined) return;
    this.#parts.set(key, { last: event, text: streamedText(part?.text, event) });
  }
}

/**
 * A delta with the envelope of `last` (its part, turn and time) and all of `text`, marked
 * `catchUp`: a reader that has some of the part's text replaces it.
 */
function madeFrom(last: DeltaEvent, text: string): DeltaEvent {
  const id = `${last.id}~so-far`;
  const native = { backend: last.native?.backend ?? "replay", type: CATCH_UP_SOURCE } as const;
  switch (last.type) {
    case "tool.input.delta":
      return {
        ...last,
        id,
        native,
        data: { callId: last.data.callId, delta: text, catchUp: true },
      };
    case "text.delta":
    case "reasoning.delta":
      return {
        ...last,
        id,
        native,
        data: { partId: last.data.partId, delta: text, catchUp: true },
      };
  }
}

/** Whether `event` is a piece of a streamed part (what `StreamedSoFar` folds). */
export function isDelta(event: CanonicalEvent): event is DeltaEvent {
  return (
    event.type === "text.delta" ||
    event.type === "reasoning.delta" ||
    event.type === "tool.input.delta"
  );
}

/** A part's text after `event`: a catch-up delta is all of it, any other adds to it. */
export function streamedText(before: string | undefined, event: DeltaEvent): string {
  return event.data.catchUp === true ? event.data.delta : (before ?? "") + event.data.delta;
}
