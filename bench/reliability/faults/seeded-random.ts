/**
 * A small seeded random source (mulberry32) for fault timing: the same suite seed gives the
 * same choices, so that a run's schedule of cuts or kills can be repeated.
 */
export interface SeededRandom {
  /** 0 ≤ x < 1. */
  next(): number;
  /** An integer from `min` to `max`, both included. */
  between(min: number, max: number): number;
  /** One of `choices`, each as likely. */
  pick<T>(choices: readonly T[]): T;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    between: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick<T>(choices: readonly T[]): T {
      const choice = choices[Math.floor(next() * choices.length)];
      if (choice === undefined) throw new Error("pick from no choices");
      return choice;
    },
  };
}
