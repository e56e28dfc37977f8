/**
 * What the bridge-sigkill scenario checks of a session's stored transcript: seqs dense from 1,
 * no event id twice, one `turn.ended` per turn started (completed, with the scripted reply), and
 * each turn's events the same as those of a turn nobody interrupted (the reference): a killed
 * bridge's successor must neither lose a durable event of the turn nor keep one twice.
 */
import type { CanonicalEvent } from "../../../src/events/canonical.js";

export interface TranscriptFigures {
  events: number;
  turnsStarted: number;
  /** Turns with exactly one `turn.ended`, completed, whose text is the reply. */
  endedOnce: number;
  /** Seqs missing from 1..max, plus events of a turn's reference missing from it. */
  lost: number;
  /** Seqs or ids seen twice, plus events of a turn beyond its reference's. */
  duplicated: number;
  /** What was wrong, one line each (the first few matter). */
  problems: string[];
}

/** A turn's events as the reference compares them: the type, and the text where there is one. */
function signatureOf(event: CanonicalEvent): string {
  if (event.type === "text.ended") return `${event.type} ${event.data.text}`;
  if (event.type === "turn.ended") return `${event.type} ${event.data.outcome} ${event.data.text}`;
  return event.type;
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/** Seqs must run 1..n: a missing one is lost, one seen again duplicated. */
function checkSeqs(events: readonly CanonicalEvent[], figures: TranscriptFigures): void {
  const seqs = events.map((event) => event.seq ?? 0);
  const seen = new Set<number>();
  for (const seq of seqs) {
    if (seen.has(seq)) {
      figures.duplicated++;
      figures.problems.push(`seq ${seq} twice`);
    }
    seen.add(seq);
  }
  const max = Math.max(0, ...seqs);
  for (let seq = 1; seq <= max; seq++) {
    if (!seen.has(seq)) {
      figures.lost++;
      figures.problems.push(`seq ${seq} missing`);
    }
  }
  const ids = countBy(events.map((event) => event.id));
  for (const [id, count] of ids) {
    if (count === 1) continue;
    figures.duplicated += count - 1;
    figures.problems.push(`event id ${id} ${count} times`);
  }
}

/**
 * Checks `events` (a session's stored transcript, in seq order) against `reply` (each turn's
 * text) and the events of `referenceTurnId` (a turn nobody interrupted).
 */
export function checkTranscript(
  events: readonly CanonicalEvent[],
  reply: string,
  referenceTurnId: string | undefined,
): TranscriptFigures {
  const figures: TranscriptFigures = {
    events: events.length,
    turnsStarted: 0,
    endedOnce: 0,
    lost: 0,
    duplicated: 0,
    problems: [],
  };
  checkSeqs(events, figures);
  const byTurn = new Map<string, CanonicalEvent[]>();
  for (const event of events) {
    if (event.turnId === undefined) continue;
    byTurn.set(event.turnId, [...(byTurn.get(event.turnId) ?? []), event]);
  }
  const reference = referenceTurnId === undefined ? undefined : byTurn.get(referenceTurnId);
  const expected = countBy((reference ?? []).map(signatureOf));
  for (const [turnId, turnEvents] of byTurn) {
    if (!turnEvents.some((event) => event.type === "turn.started")) continue;
    figures.turnsStarted++;
    const ends = turnEvents.filter((event) => event.type === "turn.ended");
    const end = ends[0];
    if (ends.length === 1 && end?.type === "turn.ended") {
      if (end.data.outcome === "completed" && end.data.text === reply) figures.endedOnce++;
      else figures.problems.push(`turn ${turnId} ended ${end.data.outcome}: ${end.data.text}`);
    } else {
      figures.problems.push(`turn ${turnId} ended ${ends.length} times`);
    }
    if (reference === undefined) continue;
    const actual = countBy(turnEvents.map(signatureOf));
    for (const key of new Set([...expected.keys(), ...actual.keys()])) {
      const difference = (actual.get(key) ?? 0) - (expected.get(key) ?? 0);
      if (difference === 0) continue;
      if (difference > 0) figures.duplicated += difference;
      else figures.lost -= difference;
      figures.problems.push(`turn ${turnId}: ${key} ${difference > 0 ? "+" : ""}${difference}`);
    }
  }
  return figures;
}
