/**
 * What a canonical event says about a part that streams deltas (text, reasoning, tool
 * input): which part, and its delta or its whole value. The delta catch-up reads events
 * through this, and writes the one delta it makes itself (a part's missing tail).
 */
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "./canonical.js";

/** The kinds of part that stream deltas. */
export type DeltaKind = "text" | "reasoning" | "tool.input";

export const DELTA_KINDS: readonly DeltaKind[] = ["text", "reasoning", "tool.input"];

export type PartPhase = "started" | "delta" | "ended";

/** What an event says about a streamed part: which part, and its delta or whole value. */
export interface PartEvent {
  kind: DeltaKind;
  id: string;
  phase: PartPhase;
  /** The delta, or the whole value at the end. */
  text: string;
}

type PartReader<T extends CanonicalType> = (event: CanonicalEventOf<T>) => PartEvent;

const part = (kind: DeltaKind, id: string, phase: PartPhase, text = ""): PartEvent => ({
  kind,
  id,
  phase,
  text,
});

const PART_EVENTS: { [T in CanonicalType]?: PartReader<T> } = {
  "text.started": (e) => part("text", e.data.partId, "started"),
  "text.delta": (e) => part("text", e.data.partId, "delta", e.data.delta),
  "text.ended": (e) => part("text", e.data.partId, "ended", e.data.text),
  "reasoning.started": (e) => part("reasoning", e.data.partId, "started"),
  "reasoning.delta": (e) => part("reasoning", e.data.partId, "delta", e.data.delta),
  "reasoning.ended": (e) => part("reasoning", e.data.partId, "ended", e.data.text),
  "tool.input.started": (e) => part("tool.input", e.data.callId, "started"),
  "tool.input.delta": (e) => part("tool.input", e.data.callId, "delta", e.data.delta),
  "tool.input.ended": (e) => part("tool.input", e.data.callId, "ended", e.data.input),
};

export function partEventOf(event: CanonicalEvent): PartEvent | undefined {
  const read = PART_EVENTS[event.type] as ((event: CanonicalEvent) => PartEvent) | undefined;
  return read?.(event);
}

/**
 * A delta of the part that `end` ends, carrying `text`: made from the end itself (same
 * session, turn, time and native origin), with an id of its own.
 */
export function deltaFromEnd(end: CanonicalEvent, text: string): CanonicalEvent | undefined {
  const { seq: _seq, ...base } = end;
  const delta = { ...base, id: `${end.id}~tail`, durable: false as const };
  if (end.type === "text.ended" || end.type === "reasoning.ended") {
    const type = end.type === "text.ended" ? "text.delta" : "reasoning.delta";
    return { ...delta, type, data: { partId: end.data.partId, delta: text } };
  }
  if (end.type === "tool.input.ended") {
    return { ...delta, type: "tool.input.delta", data: { callId: end.data.callId, delta: text } };
  }
  return undefined;
}
