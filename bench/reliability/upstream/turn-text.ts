/**
 * The text of a turn, three ways that must agree with the reply the scripted model was told to
 * give: its deltas joined (as a reader of the turn saw them), its text part's end (stored), and
 * the turn's result.
 */
import type { CanonicalEvent } from "../../../src/events/canonical.js";

export interface TurnText {
  /** The text deltas of the turn's events, joined per part, the parts in order. */
  deltas: string[];
  /** The `text.ended` values stored, in order. */
  ended: string[];
}

export function turnText(
  live: readonly CanonicalEvent[],
  transcript: readonly CanonicalEvent[],
): TurnText {
  const byPart = new Map<string, string>();
  for (const event of live) {
    if (event.type !== "text.delta") continue;
    byPart.set(event.data.partId, (byPart.get(event.data.partId) ?? "") + event.data.delta);
  }
  const ended = transcript.flatMap((event) =>
    event.type === "text.ended" ? [event.data.text] : [],
  );
  return { deltas: [...byPart.values()], ended };
}

/** The `turn.ended` events of `turnId` in `events`. */
export function endsOf(events: readonly CanonicalEvent[], turnId: string): CanonicalEvent[] {
  return events.filter((event) => event.type === "turn.ended" && event.turnId === turnId);
}
