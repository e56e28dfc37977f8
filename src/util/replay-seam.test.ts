import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AbortError, UsageError } from "../errors.js";
import {
  ReplayOverflowError,
  ReplaySeam,
  type ReplaySeamOptions,
  SeqCursor,
  SeqGapError,
} from "./replay-seam.js";

/** A test event: numbered (`seq`) or not; `at` is its place in the session, for order checks. */
interface Ev {
  seq?: number;
  at: number;
}

const seqOf = (event: Ev): number | undefined => event.seq;

function seam(options: Partial<ReplaySeamOptions<Ev>> = {}): ReplaySeam<Ev> {
  return new ReplaySeam<Ev>({ after: 0, seqOf, bufferLimit: 100, ...options });
}

/** A session's events in order: `true` a numbered one (1, 2, …), `false` an ephemeral one. */
function session(kinds: readonly boolean[]): Ev[] {
  let seq = 0;
  return kinds.map((numbered, at) => (numbered ? { seq: ++seq, at } : { at }));
}

const seqs = (events: readonly Ev[]): number[] =>
  events.flatMap((event) => (event.seq === undefined ? [] : [event.seq]));

const range = (from: number, to: number): number[] =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

/**
 * One read of `events` by a reader that has seq `after`: the live subscription begins at
 * `liveFrom` (an index), the replay reads the numbered events of `events[0, keptUpTo)` after
 * `after` (the kept events when it starts, `keptUpTo >= liveFrom`: the subscription came
 * first), `dupes` live events are sent again right after themselves (an upstream that resumed),
 * and `order` interleaves the replay's events with the live ones (true: a kept one next).
 * Stops after `stopAfter` events handed out (a reconnect), or at the end.
 */
interface Read {
  liveFrom: number;
  keptUpTo: number;
  dupes: readonly number[];
  order: readonly boolean[];
  stopAfter: number;
  /** Live events left out (lost upstream). */
  lost?: ReadonlySet<number>;
}

function readOnce(
  events: readonly Ev[],
  after: number,
  read: Read,
  options: Partial<ReplaySeamOptions<Ev>> = {},
): { out: Ev[]; last: number; error?: unknown; maxBuffered: number } {
  const s = seam({ after, ...options });
  const kept = events.slice(0, read.keptUpTo).filter((e) => e.seq !== undefined && e.seq > after);
  const live: Ev[] = [];
  events.slice(read.liveFrom).forEach((event, index) => {
    if (read.lost?.has(read.liveFrom + index)) return;
    live.push(event);
    // Only numbered events come again: an ephemeral one has nothing to tell it is a copy.
    if (read.dupes.includes(index) && event.seq !== undefined) live.push(event);
  });
  const out: Ev[] = [];
  let maxBuffered = 0;
  const hand = (batch: readonly Ev[]): boolean => {
    for (const event of batch) {
      if (out.length >= read.stopAfter) return false;
      out.push(event);
    }
    return out.length < read.stopAfter;
  };
  try {
    let k = 0;
    let l = 0;
    let step = 0;
    while (k < kept.length) {
      const keptNext = read.order[step++ % Math.max(1, read.order.length)] ?? true;
      if (keptNext || l >= live.length) {
        const event = kept[k++] as Ev;
        if (s.kept(event) && !hand([event])) return { out, last: s.last, maxBuffered };
      } else {
        s.arrived(live[l++] as Ev);
      }
      maxBuffered = Math.max(maxBuffered, s.buffered);
    }
    // The switch waits until the live side has passed what the replay read (the contract).
    const livePassed = live.findIndex((event) => event.at >= read.keptUpTo);
    const upToSwitch = livePassed === -1 ? live.length : livePassed;
    while (l < upToSwitch) {
      s.arrived(live[l++] as Ev);
      maxBuffered = Math.max(maxBuffered, s.buffered);
    }
    if (!hand(s.goLive())) return { out, last: s.last, maxBuffered };
    while (l < live.length) {
      if (!hand(s.arrived(live[l++] as Ev))) break;
    }
    return { out, last: s.last, maxBuffered };
  } catch (error) {
    return { out, last: s.last, error, maxBuffered };
  }
}

/** A session and a read of it that leaves no hole (`keptUpTo >= liveFrom`). */
const sessionAndRead = fc.array(fc.boolean(), { minLength: 0, maxLength: 40 }).chain((kinds) => {
  const events = session(kinds);
  const n = events.length;
  return fc.record({
    events: fc.constant(events),
    after: fc.nat(seqs(events).length),
    read: readOf(n),
  });
});

function readOf(n: number): fc.Arbitrary<Read> {
  return fc.tuple(fc.nat(n), fc.nat(n)).chain(([a, b]) =>
    fc.record({
      liveFrom: fc.constant(Math.min(a, b)),
      keptUpTo: fc.constant(Math.max(a, b)),
      dupes: fc.array(fc.nat(n), { maxLength: 5 }),
      order: fc.array(fc.boolean(), { maxLength: 20 }),
      stopAfter: fc.constant(Number.POSITIVE_INFINITY),
    }),
  );
}

describe("SeqCursor", () => {
  it("tells the next seq, a duplicate and a gap apart, and takes all but duplicates", () => {
    const cursor = new SeqCursor(2);
    expect(cursor.verdict(2)).toBe("duplicate");
    expect(cursor.verdict(3)).toBe("next");
    expect(cursor.verdict(5)).toBe("gap");
    expect(cursor.take(1)).toBe("duplicate");
    expect(cursor.last).toBe(2);
    expect(cursor.take(3)).toBe("next");
    expect(cursor.take(6)).toBe("gap");
    expect(cursor.last).toBe(6);
  });

  it("refuses an after that is no seq", () => {
    expect(() => new SeqCursor(-1)).toThrow(UsageError);
    expect(() => new SeqCursor(1.5)).toThrow(UsageError);
  });
});

describe("ReplaySeam", () => {
  it("hands out the kept events, then the buffered live ones it lacks, then live ones", () => {
    const s = seam({ after: 1 });
    expect(s.arrived({ seq: 3, at: 3 })).toEqual([]); // buffered: the replay runs
    expect(s.arrived({ at: 4 })).toEqual([]);
    expect(s.kept({ seq: 2, at: 2 })).toBe(true);
    expect(s.kept({ seq: 3, at: 3 })).toBe(true);
    expect(s.buffered).toBe(2);
    expect(s.goLive()).toEqual([{ at: 4 }]);
    expect(s.live).toBe(true);
    expect(s.arrived({ seq: 3, at: 3 })).toEqual([]);
    expect(s.arrived({ seq: 4, at: 5 })).toEqual([{ seq: 4, at: 5 }]);
    expect(s.last).toBe(4);
  });

  it("drops the ephemeral events buffered before a numbered one the reader has", () => {
    const s = seam({ after: 5 });
    s.arrived({ at: 1 });
    s.arrived({ seq: 5, at: 2 });
    s.arrived({ at: 3 });
    expect(s.goLive()).toEqual([{ at: 3 }]);
  });

  it("throws SeqGapError on a hole, kept or live", () => {
    expect(() => seam({ after: 1 }).kept({ seq: 3, at: 0 })).toThrow(SeqGapError);
    const s = seam();
    s.goLive();
    expect(() => s.arrived({ seq: 2, at: 0 })).toThrow(/seq 2 came after 0/);
  });

  it("with onGap, is told of a hole and takes the event", () => {
    const gaps: unknown[] = [];
    const s = seam({ onGap: (gap) => gaps.push(gap) });
    expect(s.kept({ seq: 3, at: 0 })).toBe(true);
    expect(gaps).toEqual([{ after: 0, seq: 3 }]);
    expect(s.last).toBe(3);
  });

  it("holds at most bufferLimit live events while replaying, then throws", () => {
    const s = seam({ bufferLimit: 2 });
    s.arrived({ at: 0 });
    s.arrived({ at: 1 });
    expect(() => s.arrived({ at: 2 })).toThrow(ReplayOverflowError);
    expect(s.buffered).toBe(0);
  });

  it("lets the buffer go when its signal aborts, and refuses everything after", () => {
    const abort = new AbortController();
    const s = seam({ signal: abort.signal });
    s.arrived({ at: 0 });
    abort.abort();
    expect(s.buffered).toBe(0);
    expect(() => s.kept({ seq: 1, at: 1 })).toThrow(AbortError);
    expect(() => s.arrived({ at: 2 })).toThrow(AbortError);
    expect(() => s.goLive()).toThrow(AbortError);
  });

  it("refuses a bufferLimit that is no count", () => {
    expect(() => seam({ bufferLimit: -1 })).toThrow(UsageError);
    expect(() => seam({ bufferLimit: Number.POSITIVE_INFINITY })).not.toThrow();
  });
});

describe("ReplaySeam, properties", () => {
  it("hands out each numbered event after `after` once, in order, and keeps the session's order", () => {
    fc.assert(
      fc.property(sessionAndRead, ({ events, after, read }) => {
        const { out, error } = readOnce(events, after, read);
        expect(error).toBeUndefined();
        expect(seqs(out)).toEqual(range(after + 1, seqs(events).length));
        // Nothing overtakes: ephemeral events keep their place among the numbered ones.
        const places = out.map((event) => event.at);
        expect(places).toEqual([...new Set(places)].sort((a, b) => a - b));
      }),
    );
  });

  it("loses no live ephemeral event that comes after what the reader has at the switch", () => {
    fc.assert(
      fc.property(sessionAndRead, ({ events, after, read }) => {
        const { out } = readOnce(events, after, read);
        const keptSeqs = seqs(events.slice(0, read.keptUpTo));
        const seamSeq = Math.max(after, keptSeqs.at(-1) ?? 0);
        const seamAt = events.find((event) => event.seq === seamSeq)?.at ?? -1;
        const expected = events.filter(
          (event, index) => event.seq === undefined && index >= read.liveFrom && event.at > seamAt,
        );
        for (const event of expected) expect(out).toContainEqual(event);
      }),
    );
  });

  it("reconnecting at any point from the last seq handed out, gets every numbered event once", () => {
    const reads = fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }).chain((kinds) => {
      const events = session(kinds);
      const n = events.length;
      const cut = fc.record({
        read: readOf(n),
        stopAfter: fc.integer({ min: 1, max: n + 2 }),
      });
      return fc.record({
        events: fc.constant(events),
        reads: fc.array(cut, { minLength: 1, maxLength: 6 }),
      });
    });
    fc.assert(
      fc.property(reads, ({ events, reads: cuts }) => {
        const all: Ev[] = [];
        let after = 0;
        for (const { read, stopAfter } of cuts) {
          const { out, error } = readOnce(events, after, { ...read, stopAfter });
          expect(error).toBeUndefined();
          all.push(...out);
          // The reader starts again from the last seq it received.
          after = seqs(out).at(-1) ?? after;
        }
        // The last read goes to the end.
        const { out } = readOnce(events, after, { ...(cuts[0] as { read: Read }).read });
        all.push(...out);
        expect(seqs(all)).toEqual(range(1, seqs(events).length));
      }),
    );
  });

  it("reconnecting at every position of a session gets every numbered event once", () => {
    const events = session([true, false, true, true, false, false, true, false, true]);
    const n = events.length;
    for (let cut = 1; cut <= n; cut++) {
      for (let liveFrom = 0; liveFrom <= n; liveFrom++) {
        for (let keptUpTo = liveFrom; keptUpTo <= n; keptUpTo++) {
          const first = readOnce(events, 0, {
            liveFrom: 0,
            keptUpTo: n,
            dupes: [],
            order: [],
            stopAfter: cut,
          });
          const second = readOnce(events, seqs(first.out).at(-1) ?? 0, {
            liveFrom,
            keptUpTo,
            dupes: [0, 2],
            order: [false, true],
            stopAfter: Number.POSITIVE_INFINITY,
          });
          expect(seqs([...first.out, ...second.out])).toEqual(range(1, seqs(events).length));
        }
      }
    }
  });

  it("finds every hole a later numbered event shows, and hands out nothing past it", () => {
    const withLoss = sessionAndRead.chain((value) =>
      fc.record({
        value: fc.constant(value),
        lost: fc.uniqueArray(fc.nat(value.events.length), { maxLength: 4 }),
      }),
    );
    fc.assert(
      fc.property(withLoss, ({ value: { events, after, read }, lost }) => {
        const lostSet = new Set(lost);
        const { out, error } = readOnce(events, after, { ...read, lost: lostSet });
        const keptSeqs = seqs(events.slice(0, read.keptUpTo));
        const seamSeq = Math.max(after, keptSeqs.at(-1) ?? 0);
        const liveSeqs = events.flatMap((event, index) =>
          index >= read.liveFrom && !lostSet.has(index) && event.seq !== undefined
            ? [event.seq]
            : [],
        );
        const lostSeqs = events.flatMap((event, index) =>
          lostSet.has(index) && index >= read.liveFrom && event.seq !== undefined
            ? [event.seq]
            : [],
        );
        const shown = lostSeqs.some(
          (seq) => seq > seamSeq && liveSeqs.some((later) => later > seq),
        );
        expect(error instanceof SeqGapError).toBe(shown);
        const got = seqs(out);
        expect(got).toEqual(range(after + 1, after + got.length));
      }),
    );
  });

  it("never holds more than bufferLimit events, and overflows only past it", () => {
    const bounded = sessionAndRead.chain((value) =>
      fc.record({ value: fc.constant(value), limit: fc.nat(8) }),
    );
    fc.assert(
      fc.property(bounded, ({ value: { events, after, read }, limit }) => {
        const bound = readOnce(events, after, read, { bufferLimit: limit });
        const unbound = readOnce(events, after, read, { bufferLimit: Number.POSITIVE_INFINITY });
        expect(bound.maxBuffered).toBeLessThanOrEqual(limit);
        expect(bound.error instanceof ReplayOverflowError).toBe(unbound.maxBuffered > limit);
      }),
    );
  });
});
