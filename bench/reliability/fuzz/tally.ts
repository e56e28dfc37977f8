/** What a fuzz run counted, and the first example of each kind of problem it met. */
import type { FrameProblem, ProblemKind } from "./checks.js";
import type { Surface } from "./seed-frames.js";

export interface ProblemRecord {
  count: number;
  first: string;
}

export class FuzzTally {
  /** Frames fed (mutated or not). */
  frames = 0;
  /** Mutated frames fed: the figure the "1,000,000" counts. */
  mutated = 0;
  events = 0;
  cases = 0;
  /** Frames written to a stream and never read (SSE), or read more often than written. */
  lost = 0;
  duplicated = 0;
  readonly mutatedBySurface = new Map<Surface, number>();
  readonly problems = new Map<ProblemKind, ProblemRecord>();
  /** Set at the first failing case: fast-check's shrinking re-runs cases that must not count. */
  #frozen = false;

  get frozen(): boolean {
    return this.#frozen;
  }

  freeze(): void {
    this.#frozen = true;
  }

  addCase(surface: Surface, frames: number, mutated: number, events: number): void {
    if (this.#frozen) return;
    this.cases += 1;
    this.frames += frames;
    this.mutated += mutated;
    this.events += events;
    this.mutatedBySurface.set(surface, (this.mutatedBySurface.get(surface) ?? 0) + mutated);
  }

  addDelivery(written: number, read: number): void {
    if (this.#frozen) return;
    this.lost += Math.max(0, written - read);
    this.duplicated += Math.max(0, read - written);
  }

  addProblems(problems: readonly FrameProblem[], where: string): void {
    if (this.#frozen) return;
    for (const problem of problems) {
      const record = this.problems.get(problem.kind);
      if (record === undefined) {
        this.problems.set(problem.kind, { count: 1, first: `${where}: ${problem.detail}` });
      } else record.count += 1;
    }
  }

  /**
   * Adds what another tally counted (another worker's, as posted: its fields, without the
   * class). The first example of a kind stays this tally's when it has one.
   */
  absorb(other: Omit<FuzzTally, "frozen">): void {
    this.frames += other.frames;
    this.mutated += other.mutated;
    this.events += other.events;
    this.cases += other.cases;
    this.lost += other.lost;
    this.duplicated += other.duplicated;
    for (const [surface, mutated] of other.mutatedBySurface) {
      this.mutatedBySurface.set(surface, (this.mutatedBySurface.get(surface) ?? 0) + mutated);
    }
    for (const [kind, record] of other.problems) {
      const mine = this.problems.get(kind);
      if (mine === undefined) this.problems.set(kind, { ...record });
      else mine.count += record.count;
    }
  }

  count(kind: ProblemKind): number {
    return this.problems.get(kind)?.count ?? 0;
  }
}
