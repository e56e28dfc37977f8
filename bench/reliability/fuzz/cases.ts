/**
 * One fuzz case: a window of a recorded sequence of one surface, some of its frames mutated.
 * A window (not the whole sequence) so that most frames fed are mutated ones, and because a
 * bridge also meets a stream mid-turn (a reconnect, an adoption).
 */
import fc from "fast-check";
import { type Mutation, mutatedText, mutationArbitrary } from "./mutations.js";
import { type SeedSequence, SURFACES, type Surface } from "./seed-frames.js";

const MAX_WINDOW = 16;

export interface FuzzCase {
  surface: Surface;
  sequence: number;
  start: number;
  length: number;
  plans: { frame: number; mutations: Mutation[] }[];
}

/** Cases over `surfaces` (default all). */
export function caseArbitrary(surfaces: readonly Surface[] = SURFACES): fc.Arbitrary<FuzzCase> {
  return fc.record({
    surface: fc.constantFrom(...surfaces),
    sequence: fc.nat(),
    start: fc.nat(),
    length: fc.integer({ min: 1, max: MAX_WINDOW }),
    plans: fc.array(
      fc.record({
        frame: fc.nat({ max: MAX_WINDOW - 1 }),
        mutations: fc.array(mutationArbitrary, { minLength: 1, maxLength: 3 }),
      }),
      { minLength: 1, maxLength: MAX_WINDOW },
    ),
  });
}

/** The wire texts of a case, in order, and how many of them were mutated. */
export interface CaseTexts {
  texts: string[];
  mutated: number;
}

/** The case's window of its sequence as wire texts, the planned mutations applied. */
export function textsOf(fuzzCase: FuzzCase, bySurface: Map<Surface, SeedSequence[]>): CaseTexts {
  const sequences = bySurface.get(fuzzCase.surface) ?? [];
  const sequence = sequences[fuzzCase.sequence % sequences.length];
  if (sequence === undefined) throw new Error(`no recorded sequence of ${fuzzCase.surface}`);
  const start = fuzzCase.start % sequence.frames.length;
  const window = sequence.frames.slice(start, start + fuzzCase.length);
  const planned = new Map<number, Mutation[]>();
  for (const plan of fuzzCase.plans) {
    const index = plan.frame % window.length;
    planned.set(index, [...(planned.get(index) ?? []), ...plan.mutations]);
  }
  const texts = window.map((frame, index) => {
    const mutations = planned.get(index);
    return mutations === undefined ? JSON.stringify(frame) : mutatedText(frame, mutations);
  });
  return { texts, mutated: planned.size };
}

/** The recorded sequences grouped by surface. */
export function bySurface(sequences: readonly SeedSequence[]): Map<Surface, SeedSequence[]> {
  const groups = new Map<Surface, SeedSequence[]>();
  for (const sequence of sequences) {
    groups.set(sequence.surface, [...(groups.get(sequence.surface) ?? []), sequence]);
  }
  return groups;
}
