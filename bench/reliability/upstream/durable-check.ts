/**
 * The bridge's transcript against what it should hold: every durable event the native log
 * makes, once (none lost, none twice), numbered densely from 1, each id once.
 */
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import { durableKey } from "./native-log.js";

export interface DurableCheck {
  durableEvents: number;
  /** Expected events missing from the transcript (by native seq and type). */
  lost: string[];
  /** Events in it more often than expected (an unexpected one counts too). */
  duplicated: string[];
  /** Seqs that are not 1, 2, 3, … in order (a gap or a repeat). */
  seqProblems: string[];
  /** Ids carried by more than one event. */
  repeatedIds: string[];
}

function counts(keys: readonly string[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const key of keys) found.set(key, (found.get(key) ?? 0) + 1);
  return found;
}

export function checkDurable(
  transcript: readonly CanonicalEvent[],
  expectedKeys: readonly string[],
): DurableCheck {
  const durable = transcript.filter((event) => event.durable);
  const got = counts(durable.flatMap((event) => durableKey(event) ?? []));
  const expected = counts(expectedKeys);
  const lost: string[] = [];
  const duplicated: string[] = [];
  for (const [key, times] of expected) {
    for (let missing = times - (got.get(key) ?? 0); missing > 0; missing--) lost.push(key);
  }
  for (const [key, times] of got) {
    for (let extra = times - (expected.get(key) ?? 0); extra > 0; extra--) duplicated.push(key);
  }
  return {
    durableEvents: durable.length,
    lost,
    duplicated,
    seqProblems: seqProblems(transcript),
    repeatedIds: repeatedIds(transcript),
  };
}

/** The durable events whose seq is not their place (1, 2, 3, …): a gap or a repeat. */
export function seqProblems(transcript: readonly CanonicalEvent[]): string[] {
  return transcript
    .filter((event) => event.durable)
    .flatMap((event, index) =>
      event.seq === index + 1 ? [] : [`#${index + 1} has seq ${event.seq}`],
    );
}

/** The ids carried by more than one of `events`. */
export function repeatedIds(events: readonly CanonicalEvent[]): string[] {
  const ids = counts(events.map((event) => event.id));
  return [...ids].filter(([, times]) => times > 1).map(([id]) => id);
}
