/**
 * What the soak must show, and its figures: the RSS and heap slopes after the warm-up, under
 * the thresholds below, and the fds and active handles after the close back to the start.
 *
 * The heap judged is the bridge's objects: the heap in use after a full GC less V8's compiled
 * code, machine code and bytecode with their metadata (`getHeapCodeStatistics()`'s
 * `code_and_metadata_size` and `bytecode_and_metadata_size`). The default soak's child runs
 * V8's interpreter only (`--jit off`, run-soak.ts): with its optimising compilers on, the code
 * they compile and its metadata (deoptimisation data, relocation info, dependent-code lists,
 * most of which the statistics do not count) grew 60 to 90 KiB/min still at 5 to 10 minutes, a function tiering up for the
 * first time after another, and RSS with it; that growth is the engine's, bounded by the
 * program, and it hid what the bridge keeps. Interpreting only, the code's slope is about 0
 * after the first minute (reported beside the bar, with its thirds). With them on (`--jit on`,
 * production's), a run must be long enough for the judged window, its last 10 minutes, to
 * come after that growth levels off (`SLOPE_LIMITS`).
 *
 * The warm-up is 3 minutes, and 10 are measured after it: RSS rises some 3 MiB over the first
 * minutes (the bridge's caches and V8's spaces reaching their working size, malloc's arenas
 * their threads' share) and then stays (a run alone: 121.8 MiB at 60 s, 125.2 at 180 s, 124.6
 * at 540 s), which a fit from the first minute reads as +220 KiB/min.
 *
 * Why these thresholds. A bridge is a long-lived process: the question is whether it still
 * fits after weeks. The full soak runs about 110 turns a minute on the shared 2-core machine;
 * a heap slope of 16 KiB/min is 22.5 MiB a day of such back-to-back turns, some 150 bytes kept
 * per turn: less than one retained event (a canonical event with its data is several hundred
 * bytes of heap), so any per-turn leak of an event, a listener or a timer shows above it. RSS gets four times the room (64 KiB/min,
 * 90 MiB/day): it follows the heap, but V8 and the allocator take and keep pages in steps,
 * which a 10-minute fit still sees. Native memory that is a cache by design is measured full, as
 * a long-lived bridge has it: the store's 32 MiB SQLite page cache takes an hour of turns to
 * fill, so the child starts the bridge on a store already bigger than it (`warm-store.ts`).
 * The short variant cannot resolve any of that: its fit
 * spans some 15 s, in which the bridge's warm-up alone (V8 compiling, caches filling) reads
 * as 1 to 3 MiB/min; it is held to 8 MiB/min (heap) and 32 MiB/min (RSS), a guard against a
 * gross leak only, and its slopes are reported, not published. Its other checks (fds and
 * handles back, turns once, nothing lost or left running) are the full variant's.
 */
import type { SoakEnd, SoakSample } from "../soak/reports.js";
import { activeCount } from "./resources.js";
import { formatSlope, slopeKiBPerMinute } from "./slope.js";

export interface SlopeLimits {
  heapKiBPerMinute: number;
  rssKiBPerMinute: number;
  /** Samples before this are the warm-up (modules loading, V8 growing its spaces, caches filling). */
  warmUpMs: number;
  /** The judged fit is the run's last `judgedMs` after the warm-up (the level-off, below). */
  judgedMs: number;
}

/**
 * The full soak's judged window is its last 10 minutes: the default run's whole measured
 * window, and a longer run's end. 10 minutes because that is the window the thresholds were
 * set for and resolve (interpreting only, 10-minute fits of the objects read −1.8 to +4.5
 * KiB/min run after run against a bar of 16). A longer run judges its end, not its whole
 * measured span: growth that levels off (V8's optimising compilers still compiling functions
 * that tier up for the first time, docs/reliability.md) is steep at first and flat by the end,
 * and the question is what a bridge that runs for weeks keeps growing by; a leak is as steep in
 * the last 10 minutes as in the first, so it fails the same bar there.
 */
export const SLOPE_LIMITS: Readonly<Record<"full" | "short", SlopeLimits>> = {
  full: { heapKiBPerMinute: 16, rssKiBPerMinute: 64, warmUpMs: 180_000, judgedMs: 600_000 },
  short: {
    heapKiBPerMinute: 8192,
    rssKiBPerMinute: 32768,
    warmUpMs: 5_000,
    judgedMs: Number.POSITIVE_INFINITY,
  },
};

/**
 * Fds and active handles after the close may exceed the start by this much. Zero: the start
 * figure is taken with the log file already open and before anything of the bridge, and the
 * count after close waits (up to 5 s) for sockets to finish closing, so nothing but a leak can
 * stay above it.
 */
export const RESOURCE_TOLERANCE = 0;

export interface SoakFigures {
  /** The slope of the bridge's objects: the heap after a full GC less V8's code (judged). */
  heapSlope: number;
  /** V8's compiled code's slope (machine code and bytecode), over the judged window. */
  codeSlope: number;
  /** Of the RSS slope: V8's reserved heap's, and the other anonymous memory's (native). */
  heapTotalSlope: number;
  nativeSlope: number;
  rssSlope: number;
  /** The judged window: the samples' times (ms from the child's start) and their count. */
  judged: { fromMs: number; toMs: number; samples: number };
  /** Slopes over each third of the measured time (after the warm-up), to show a level-off. */
  thirds: { objects: number[]; code: number[]; rss: number[] };
  fdsBack: boolean;
  handlesBack: boolean;
  flat: boolean;
}

const objectsOf = (sample: SoakSample) => sample.heapBytes - sample.codeBytes;

export function soakFigures(
  samples: readonly SoakSample[],
  end: SoakEnd | undefined,
  limits: SlopeLimits,
): SoakFigures {
  const measured = samples.filter((sample) => sample.atMs >= limits.warmUpMs);
  const lastAt = measured.at(-1)?.atMs ?? 0;
  const judged = measured.filter((sample) => sample.atMs >= lastAt - limits.judgedMs);
  const slope = (of: (sample: SoakSample) => number) => slopeKiBPerMinute(judged, of);
  const heapSlope = slope(objectsOf);
  const rssSlope = slope((sample) => sample.rssBytes);
  const firstAt = measured[0]?.atMs ?? 0;
  const third = (lastAt - firstAt) / 3;
  const thirds = [0, 1, 2].map((i) =>
    measured.filter((sample) => {
      const offset = sample.atMs - firstAt;
      return (
        offset >= i * third && (i === 2 ? offset <= lastAt - firstAt : offset < (i + 1) * third)
      );
    }),
  );
  const byThirds = (of: (sample: SoakSample) => number) =>
    thirds.map((part) => slopeKiBPerMinute(part, of));
  const fdsBack = end !== undefined && end.afterClose.fds <= end.before.fds + RESOURCE_TOLERANCE;
  const handlesBack =
    end !== undefined &&
    activeCount(end.afterClose) <= activeCount(end.before) + RESOURCE_TOLERANCE;
  const flat =
    judged.length >= 3 &&
    heapSlope <= limits.heapKiBPerMinute &&
    rssSlope <= limits.rssKiBPerMinute;
  return {
    heapSlope,
    codeSlope: slope((sample) => sample.codeBytes),
    heapTotalSlope: slope((sample) => sample.heapTotalBytes),
    nativeSlope: slope((sample) => sample.anonBytes - sample.heapTotalBytes),
    rssSlope,
    judged: { fromMs: judged[0]?.atMs ?? 0, toMs: lastAt, samples: judged.length },
    thirds: {
      objects: byThirds(objectsOf),
      code: byThirds((sample) => sample.codeBytes),
      rss: byThirds((sample) => sample.rssBytes),
    },
    fdsBack,
    handlesBack,
    flat,
  };
}

export function slopeNote(figures: SoakFigures, limits: SlopeLimits): string {
  const kib = (slopes: number[]) => slopes.map((slope) => slope.toFixed(1)).join(" / ");
  const minute = (ms: number) => (ms / 60_000).toFixed(1);
  const { judged, thirds } = figures;
  return (
    `heap slope (the bridge's objects: after a full GC, less V8's compiled code) ` +
    `${formatSlope(figures.heapSlope)} (flat: ≤ ${limits.heapKiBPerMinute} KiB/min); ` +
    `V8's compiled code (machine code and bytecode) ${formatSlope(figures.codeSlope)} (not judged), ` +
    `RSS slope ${formatSlope(figures.rssSlope)} (≤ ${limits.rssKiBPerMinute} KiB/min; of it V8's ` +
    `reserved heap ${formatSlope(figures.heapTotalSlope)}, other anonymous memory (native: ` +
    `SQLite's page cache, buffers) ${formatSlope(figures.nativeSlope)}), ` +
    `least squares over ${judged.samples} samples from ${minute(judged.fromMs)} to ${minute(judged.toMs)} min ` +
    `(${Number.isFinite(limits.judgedMs) ? `the last ${minute(limits.judgedMs)} min ` : ""}after a ` +
    `${limits.warmUpMs / 1000} s warm-up), heap after a full GC; ` +
    `by thirds of the time after the warm-up, KiB/min: objects ${kib(thirds.objects)}, ` +
    `code ${kib(thirds.code)}, RSS ${kib(thirds.rss)}`
  );
}
