/**
 * The fan-out on its own, over a real (in-memory) EventLog: one reader for every subscriber,
 * the join of kept and live events (no gap, no duplicate, with events arriving while the kept
 * ones are read), the same order for every subscriber, and how a feed ends.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LogSource, tick } from "../../../test/support/feed-source.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { ReplayOverflowError, SeqGapError } from "../../util/replay-seam.js";
import type { FeedEnd, FeedSubscriber } from "./feed-types.js";
import { FeedRequestError } from "./feed-types.js";
import { SessionFeed } from "./session-feed.js";
import { SessionFeeds } from "./session-feeds.js";

type Heard =
  | { kind: "event"; event: CanonicalEvent }
  | { kind: "caught-up"; seq: number }
  | { kind: "ended"; end: FeedEnd };

class Recorder implements FeedSubscriber {
  readonly heard: Heard[] = [];
  event(event: CanonicalEvent): void {
    this.heard.push({ kind: "event", event });
  }
  caughtUp(seq: number): void {
    this.heard.push({ kind: "caught-up", seq });
  }
  ended(end: FeedEnd): void {
    this.heard.push({ kind: "ended", end });
  }
  get events(): CanonicalEvent[] {
    return this.heard.flatMap((item) => (item.kind === "event" ? [item.event] : []));
  }
  get durableSeqs(): number[] {
    return this.events.flatMap((item) => (item.durable ? [item.seq ?? -1] : []));
  }
  /** The events after the caught-up marker. */
  get live(): CanonicalEvent[] {
    const marker = this.heard.findIndex((item) => item.kind === "caught-up");
    return this.heard
      .slice(marker + 1)
      .flatMap((item) => (item.kind === "event" ? [item.event] : []));
  }
  get caughtUpAt(): number[] {
    return this.heard.flatMap((item) => (item.kind === "caught-up" ? [item.seq] : []));
  }
}

const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

const isDelta = (event: CanonicalEvent) => event.type === "text.delta";
const deltaOf = (event: CanonicalEvent) => (event.type === "text.delta" ? event.data.delta : "");
const partOf = (event: CanonicalEvent) =>
  event.type === "text.delta" || event.type === "text.ended" ? event.data.partId : undefined;

/**
 * The text each life of each part streamed, by `part#life` (a life ends with the part's
 * `text.ended`; `ends` counts the ends before `events`), and the lives that ended.
 */
function streamedByLife(events: readonly CanonicalEvent[], ends = new Map<string, number>()) {
  const texts = new Map<string, string>();
  const ended = new Set<string>();
  for (const event of events) {
    const part = partOf(event);
    if (part === undefined) continue;
    const life = `${part}#${ends.get(part) ?? 0}`;
    if (event.type === "text.ended") {
      ended.add(life);
      ends.set(part, (ends.get(part) ?? 0) + 1);
    } else {
      texts.set(life, (texts.get(life) ?? "") + deltaOf(event));
    }
  }
  return { texts, ended };
}

/** Asserts the invariants of one subscriber's stream once its session has closed. */
function expectWhole(recorder: Recorder, source: LogSource, after: number): void {
  const all = source.appended;
  expect(recorder.durableSeqs).toEqual(range(after + 1, source.lastSeq));
  const [caughtUp, ...more] = recorder.caughtUpAt;
  expect(more).toEqual([]);
  if (caughtUp === undefined) throw new Error("no caught-up marker");
  // Before the marker: only kept (durable) events.
  const marker = recorder.heard.findIndex((item) => item.kind === "caught-up");
  for (const item of recorder.heard.slice(0, marker)) {
    expect(item.kind === "event" && item.event.durable).toBe(true);
  }
  // After it, but for deltas: a run of the session's own order, starting after the marker's
  // durable event with nothing left out but ephemeral events from before the subscriber joined.
  const live = recorder.live.filter((event) => !isDelta(event));
  const order = all.filter((event) => !isDelta(event));
  const markerIndex = order.findIndex((item) => item.seq === caughtUp);
  const start = live[0] === undefined ? order.length : order.indexOf(live[0]);
  expect(start).toBeGreaterThan(markerIndex);
  expect(live).toEqual(order.slice(start));
  for (const skipped of order.slice(markerIndex + 1, start)) expect(skipped.durable).toBe(false);
  // Deltas: each life of a part that had not ended when the subscriber joined is streamed
  // whole (what came before as one delta), none before it ends (the end carries it all), and
  // none of a life that ended before it.
  const endsBefore = new Map<string, number>();
  for (const event of all) {
    const part = partOf(event);
    if (event.type === "text.ended" && part !== undefined && (event.seq ?? 0) <= after) {
      endsBefore.set(part, (endsBefore.get(part) ?? 0) + 1);
    }
  }
  const session = streamedByLife(all);
  const heard = streamedByLife(recorder.events, endsBefore);
  for (const [life, text] of heard.texts)
    expect([life, text]).toEqual([life, session.texts.get(life)]);
  for (const [life, text] of session.texts) {
    if (!session.ended.has(life)) expect([life, heard.texts.get(life)]).toEqual([life, text]);
  }
  expect(recorder.heard.at(-1)).toEqual({ kind: "ended", end: { reason: "session-closed" } });
}

describe("SessionFeed", () => {
  it("hands a subscriber the kept events after its seq, the marker, then live events", async () => {
    const source = new LogSource();
    for (let n = 0; n < 5; n++) source.append(true);
    const feed = new SessionFeed(source);
    const recorder = new Recorder();
    feed.join(recorder, 2);
    await tick();
    expect(recorder.durableSeqs).toEqual([3, 4, 5]);
    expect(recorder.caughtUpAt).toEqual([5]);
    const delta = source.append(false);
    const ended = source.append(true);
    await tick();
    expect(recorder.live).toEqual([delta, ended]);
    source.log.close();
    await tick();
    expectWhole(recorder, source, 2);
  });

  it("says caught up at once when the subscriber has everything", async () => {
    const source = new LogSource();
    for (let n = 0; n < 3; n++) source.append(true);
    const feed = new SessionFeed(source);
    const recorder = new Recorder();
    feed.join(recorder, 3);
    await tick();
    expect(recorder.heard).toEqual([{ kind: "caught-up", seq: 3 }]);
  });

  it("refuses an after past the session's last seq, saying how far it goes", () => {
    const source = new LogSource();
    source.append(true);
    const feed = new SessionFeed(source);
    const join = () => feed.join(new Recorder(), 7);
    expect(join).toThrow(FeedRequestError);
    expect(join).toThrow(/after 7 is past the last seq of session ses_feed \(1\)/);
  });

  it("joins up with no gap and no duplicate while events arrive during the kept read", async () => {
    const source = new LogSource(1); // one kept event per page: many switches to watch
    for (let n = 0; n < 6; n++) source.append(true);
    const feed = new SessionFeed(source);
    const early = new Recorder();
    feed.join(early, 6);
    await tick();
    let extra = 0;
    source.duringKeptRead = async () => {
      // Durable and ephemeral events land between every two kept events the joiner reads.
      if (extra++ < 12) {
        source.append(extra % 2 === 0);
        await tick();
      }
    };
    const joiner = new Recorder();
    feed.join(joiner, 1);
    for (let n = 0; n < 30; n++) await tick();
    source.duringKeptRead = undefined;
    source.append(true);
    await tick();
    source.log.close();
    await tick();
    expectWhole(early, source, 6);
    expectWhole(joiner, source, 1);
    // The joiner's live part is the tail of what the early subscriber saw, in the same order
    // (but for the deltas: what streamed before it joined came to it as one per part).
    const joinerLive = joiner.live.filter((event) => !isDelta(event));
    const earlyAll = early.events.filter((event) => !isDelta(event));
    expect(earlyAll.slice(-joinerLive.length)).toEqual(joinerLive);
  });

  it("waits for its reader to pass a subscriber's seq before saying it is caught up", async () => {
    const source = new LogSource();
    const feed = new SessionFeed(source);
    const first = new Recorder();
    feed.join(first, 0);
    // Appended at once: the feed's reader has not read them yet when the second one joins.
    source.append(true);
    const streaming = source.append(false);
    source.append(true);
    const behind = new Recorder();
    feed.join(behind, 2);
    expect(behind.heard).toEqual([]);
    const next = source.append(false);
    await tick();
    // The part that streamed before it joined, whose delta it could not be given as it came,
    // comes as what it has streamed so far, then what came after.
    expect(behind.heard).toEqual([
      { kind: "caught-up", seq: 2 },
      {
        kind: "event",
        event: {
          ...streaming,
          id: `${streaming.id}~so-far`,
          data: { ...streaming.data, catchUp: true },
          native: expect.anything(),
        },
      },
      { kind: "event", event: next },
    ]);
    source.log.close();
    await tick();
    expectWhole(behind, source, 2);
  });

  it("hands a subscriber that joins mid-part what it streamed so far, then its next deltas", async () => {
    const source = new LogSource();
    source.append(true);
    const first = source.append(false, 0, "p");
    const feeds = new SessionFeeds();
    // A feed made mid-part (its first subscriber: a page reloaded with no other open) ...
    const opener = new Recorder();
    feeds.join(source, opener, 1);
    await tick();
    const second = source.append(false, 0, "p");
    await tick();
    // ... and one who joins a feed that has run through the part (a second tab).
    const later = new Recorder();
    feeds.join(source, later, 1);
    await tick();
    const third = source.append(false, 0, "p");
    const end = source.append(true, 0, "p");
    await tick();
    const texts = (recorder: Recorder) =>
      recorder.live.map((event) => (isDelta(event) ? deltaOf(event) : event.type));
    const [a, b, c] = [first, second, third].map(deltaOf);
    expect(texts(opener)).toEqual([a, b, c, "text.ended"]);
    expect(texts(later)).toEqual([`${a}${b}`, c, "text.ended"]);
    expect(later.live.at(-1)).toEqual(end);
  });

  it("reads the session once however many subscribe, and ends them all when it closes", async () => {
    const source = new LogSource();
    const feeds = new SessionFeeds();
    const recorders = [new Recorder(), new Recorder(), new Recorder()];
    for (const recorder of recorders) feeds.join(source, recorder, 0);
    for (let n = 0; n < 4; n++) source.append(n % 2 === 0);
    await tick();
    // One read for the feed, plus none for the kept events (each joined at the live end).
    expect(source.reads).toBe(1);
    expect(feeds.readers).toBe(1);
    source.log.close();
    await tick();
    for (const recorder of recorders) {
      expectWhole(recorder, source, 0);
      expect(recorder.events).toEqual(source.appended);
    }
    expect(feeds.readers).toBe(0);
  });

  it("stops reading when the last subscriber leaves, and a later one gets a new reader", async () => {
    const source = new LogSource();
    const feeds = new SessionFeeds();
    const one = feeds.join(source, new Recorder(), 0);
    const two = feeds.join(source, new Recorder(), 0);
    one.leave();
    expect(feeds.readers).toBe(1);
    two.leave();
    two.leave(); // idempotent
    expect(feeds.readers).toBe(0);
    source.append(true);
    const later = new Recorder();
    feeds.join(source, later, 0);
    await tick();
    expect(later.durableSeqs).toEqual([1]);
    expect(later.caughtUpAt).toEqual([1]);
  });

  it("ends only the subscriber whose callback throws", async () => {
    const source = new LogSource();
    const feed = new SessionFeed(source);
    const broken = new Recorder();
    broken.event = () => {
      throw new Error("socket gone");
    };
    const fine = new Recorder();
    feed.join(broken, 0);
    feed.join(fine, 0);
    source.append(true);
    source.append(true);
    await tick();
    expect(broken.heard.at(-1)).toMatchObject({ kind: "ended", end: { reason: "failed" } });
    expect(fine.durableSeqs).toEqual([1, 2]);
    expect(feed.size).toBe(1);
  });

  it("tells a subscriber when its kept events cannot be read", async () => {
    const source = new LogSource();
    source.append(true);
    source.append(true);
    const feed = new SessionFeed(source);
    source.duringKeptRead = () => {
      throw new Error("store closed");
    };
    const recorder = new Recorder();
    feed.join(recorder, 0);
    await tick();
    expect(recorder.heard).toEqual([
      { kind: "ended", end: { reason: "failed", error: new Error("store closed") } },
    ]);
  });

  it("ends a joiner whose kept read lets more live events pile up than it may hold", async () => {
    const source = new LogSource(1);
    source.append(true);
    source.append(true);
    const feed = new SessionFeed(source, { joinBufferLimit: 2 });
    const early = new Recorder();
    feed.join(early, 2);
    await tick();
    let extra = 0;
    source.duringKeptRead = async () => {
      // Three durable events land while the joiner reads its first kept one (one too many),
      // and the feed hands them out before the read goes on.
      if (extra > 0) return;
      for (; extra < 3; extra++) source.append(true);
      await tick();
    };
    const joiner = new Recorder();
    feed.join(joiner, 0);
    for (let n = 0; n < 10; n++) await tick();
    expect(joiner.heard.at(-1)).toEqual({
      kind: "ended",
      end: { reason: "failed", error: expect.any(ReplayOverflowError) },
    });
    expect(joiner.caughtUpAt).toEqual([]);
    // The feed and its other subscriber go on.
    expect(early.durableSeqs).toEqual([3, 4, 5]);
    expect(feed.running).toBe(true);
  });

  it("ends a joiner whose kept events have a hole instead of handing out a gap", async () => {
    class HoleySource extends LogSource {
      override events(options: { after?: number; signal?: AbortSignal }) {
        const events = super.events(options);
        if (this.reads === 1) return events; // the feed's own reader
        return (async function* () {
          for await (const event of events) if (event.seq !== 2) yield event;
        })();
      }
    }
    const source = new HoleySource();
    for (let n = 0; n < 3; n++) source.append(true);
    const feed = new SessionFeed(source);
    const joiner = new Recorder();
    feed.join(joiner, 0);
    for (let n = 0; n < 5; n++) await tick();
    expect(joiner.durableSeqs).toEqual([1]);
    expect(joiner.heard.at(-1)).toEqual({
      kind: "ended",
      end: { reason: "failed", error: expect.any(SeqGapError) },
    });
  });

  it("keeps every subscriber whole under random interleavings of events and joins", async () => {
    // Events of parts 0 to 2: a durable one ends its part, an ephemeral one is a delta of it.
    type Step =
      | { kind: "durable"; part: number }
      | { kind: "ephemeral"; part: number }
      | { kind: "join"; back: number };
    const part = fc.nat({ max: 2 });
    const step = fc.oneof(
      part.map((n): Step => ({ kind: "durable", part: n })),
      part.map((n): Step => ({ kind: "ephemeral", part: n })),
      fc.nat({ max: 8 }).map((back): Step => ({ kind: "join", back })),
      part.map((n): Step => ({ kind: "durable", part: n })),
    );
    const plan = fc.record({
      steps: fc.array(fc.tuple(step, fc.nat({ max: 2 })), { minLength: 1, maxLength: 40 }),
      pageSize: fc.integer({ min: 1, max: 4 }),
      appendsDuringRead: fc.nat({ max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ steps, pageSize, appendsDuringRead }) => {
        const source = new LogSource(pageSize);
        const feeds = new SessionFeeds();
        const joined: { recorder: Recorder; after: number }[] = [];
        // An anchor keeps the feed running throughout (a feed with no members stops).
        const anchor = new Recorder();
        feeds.join(source, anchor, 0);
        let during = 0;
        source.duringKeptRead = () => {
          if (during++ % 3 < appendsDuringRead)
            source.append(during % 2 === 0, 0, `p${during % 3}`);
        };
        for (const [item, ticks] of steps) {
          if (item.kind === "join") {
            const after = Math.max(0, source.lastSeq - item.back);
            const recorder = new Recorder();
            feeds.join(source, recorder, after);
            joined.push({ recorder, after });
          } else {
            source.append(item.kind === "durable", 0, `p${item.part}`);
          }
          for (let n = 0; n < ticks; n++) await tick();
        }
        for (let n = 0; n < 20; n++) await tick();
        source.log.close();
        for (let n = 0; n < 5; n++) await tick();
        expectWhole(anchor, source, 0);
        for (const { recorder, after } of joined) expectWhole(recorder, source, after);
      }),
      { numRuns: 150 },
    );
  });
});

describe("SessionFeed.join", () => {
  it("never calls the subscriber back from inside join (it sets itself up first)", async () => {
    const source = new LogSource();
    source.append(true);
    const feed = new SessionFeed(source);
    const recorder = new Recorder();
    feed.join(recorder, 1);
    expect(recorder.heard).toEqual([]);
    await tick();
    expect(recorder.heard).toEqual([{ kind: "caught-up", seq: 1 }]);
  });
});
