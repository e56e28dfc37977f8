/**
 * The fan-out on its own, over a real (in-memory) EventLog: one reader for every subscriber,
 * the join of kept and live events (no gap, no duplicate, with events arriving while the kept
 * ones are read), the same order for every subscriber, and how a feed ends.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LogSource, tick } from "../../../test/support/feed-source.js";
import type { CanonicalEvent } from "../../events/canonical.js";
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
  // After it: a run of the session's own order, starting after the marker's durable event
  // with nothing left out but ephemeral events from before the subscriber joined.
  const live = recorder.live;
  const markerIndex = all.findIndex((item) => item.seq === caughtUp);
  const start = live[0] === undefined ? all.length : all.indexOf(live[0]);
  expect(start).toBeGreaterThan(markerIndex);
  expect(live).toEqual(all.slice(start));
  for (const skipped of all.slice(markerIndex + 1, start)) expect(skipped.durable).toBe(false);
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
    // The joiner's live part is the tail of what the early subscriber saw, in the same order.
    expect(early.events.slice(-joiner.live.length)).toEqual(joiner.live);
  });

  it("waits for its reader to pass a subscriber's seq before saying it is caught up", async () => {
    const source = new LogSource();
    const feed = new SessionFeed(source);
    const first = new Recorder();
    feed.join(first, 0);
    // Appended at once: the feed's reader has not read them yet when the second one joins.
    source.append(true);
    source.append(false);
    source.append(true);
    const behind = new Recorder();
    feed.join(behind, 2);
    expect(behind.heard).toEqual([]);
    const next = source.append(false);
    await tick();
    expect(behind.heard).toEqual([
      { kind: "caught-up", seq: 2 },
      { kind: "event", event: next },
    ]);
    source.log.close();
    await tick();
    expectWhole(behind, source, 2);
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

  it("keeps every subscriber whole under random interleavings of events and joins", async () => {
    type Step = { kind: "durable" } | { kind: "ephemeral" } | { kind: "join"; back: number };
    const step = fc.oneof(
      fc.constant<Step>({ kind: "durable" }),
      fc.constant<Step>({ kind: "ephemeral" }),
      fc.nat({ max: 8 }).map((back): Step => ({ kind: "join", back })),
      fc.constant<Step>({ kind: "durable" }),
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
          if (during++ % 3 < appendsDuringRead) source.append(during % 2 === 0);
        };
        for (const [item, ticks] of steps) {
          if (item.kind === "join") {
            const after = Math.max(0, source.lastSeq - item.back);
            const recorder = new Recorder();
            feeds.join(source, recorder, after);
            joined.push({ recorder, after });
          } else {
            source.append(item.kind === "durable");
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
