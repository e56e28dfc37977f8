/**
 * The merge of a remote session's durable feed with its relayed deltas, fed by hand in the
 * orders the two paths can take: a delta before its part's start waits for it; an end that
 * comes before its last deltas waits for them (bounded); a delta after its part's end is
 * dropped; a part begun before the relay was live goes out from its end; the durable events
 * pass untouched, in order.
 */
import { describe, expect, it } from "vitest";
import { canonical } from "../../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../../events/canonical.js";
import { AsyncQueue } from "../../util/async-queue.js";
import { silentLogger } from "../../util/logger.js";
import { mergeRelayedDeltas } from "./delta-merge.js";
import type { RelaySink } from "./delta-relay.js";

let n = 0;
function event<T extends CanonicalType>(
  type: T,
  data: CanonicalEventOf<T>["data"],
  seq?: number,
): CanonicalEvent {
  n += 1;
  const origin = {
    sessionId: "ses_1",
    turnId: "turn_1",
    at: n,
    native: { backend: "serve" as const, type, id: `evt_${n}` },
  };
  const made = canonical(origin, 0, type, data);
  return seq === undefined ? made : { ...made, seq };
}

const delta = (partId: string, text: string) => event("text.delta", { partId, delta: text });

/** A merge fed by hand: `durable(e)` as the feed, `sink` as the relay; `seen` what went out. */
function handFed() {
  const feed = new AsyncQueue<CanonicalEvent>();
  const stop = new AbortController();
  let sink: RelaySink | undefined;
  const seen: CanonicalEvent[] = [];
  let seq = 0;
  const merged = mergeRelayedDeltas(
    (signal) => feed.read(signal, "the test feed"),
    (relaySink, signal) => {
      sink = relaySink;
      const done = new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true }),
      );
      return { done, nudge: () => {} };
    },
    stop.signal,
    silentLogger,
    { idleMs: 60_000, maxHoldMs: 60_000 }, // an end waits for its deltas, however slow the machine
  );
  const reading = (async () => {
    try {
      for await (const out of merged) seen.push(out);
    } catch {
      // aborted at the end of the test
    }
  })();
  const relay = () => {
    if (sink === undefined) throw new Error("the relay was not started");
    return sink;
  };
  return {
    seen,
    durable: (type: "text.started" | "text.ended" | "turn.ended", data: object) => {
      seq += 1;
      feed.push(event(type, data as never, seq));
    },
    relay,
    texts: (partId: string) =>
      seen
        .filter((e) => e.type === "text.delta" && e.data.partId === partId)
        .map((e) => (e.type === "text.delta" ? e.data.delta : ""))
        .join(""),
    types: () => seen.map((e) => e.type),
    async close() {
      stop.abort();
      await reading;
    },
  };
}

/** Lets what was fed go through (for checks that something did NOT go out). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
/** Waits until the merge has handed out `types`. */
const handedOut = (merge: ReturnType<typeof handFed>, types: string[]) =>
  expect.poll(() => merge.types()).toEqual(types);

describe("merging relayed deltas with the durable feed", () => {
  it("holds a delta that comes before its part's start, and an end that comes before its last deltas", async () => {
    const merge = handFed();
    await settle();
    merge.relay().live();
    merge.relay().delta(delta("p1", "Hello "));
    await settle();
    expect(merge.seen).toEqual([]); // its part has not started here yet
    merge.durable("text.started", { partId: "p1", stepId: "s1" });
    merge.durable("text.ended", { partId: "p1", stepId: "s1", text: "Hello world" });
    await handedOut(merge, ["text.started", "text.delta"]);
    await settle();
    expect(merge.types()).toEqual(["text.started", "text.delta"]); // the end waits for "world"
    merge.relay().delta(delta("p1", "world"));
    await handedOut(merge, ["text.started", "text.delta", "text.delta", "text.ended"]);
    expect(merge.texts("p1")).toBe("Hello world");
    // Later deltas of the part are dropped; the durable events keep their seqs and order.
    merge.relay().delta(delta("p1", " again"));
    merge.durable("turn.ended", { outcome: "completed" });
    await expect.poll(() => merge.types().at(-1)).toBe("turn.ended");
    expect(merge.texts("p1")).toBe("Hello world");
    expect(merge.seen.filter((e) => e.durable).map((e) => e.seq)).toEqual([1, 2, 3]);
    await merge.close();
  });

  it("sends a part begun before the relay was live from its end, and drops its relayed deltas", async () => {
    const merge = handFed();
    await settle();
    merge.durable("text.started", { partId: "p1", stepId: "s1" });
    await handedOut(merge, ["text.started"]);
    merge.relay().live(); // the relay's subscription is live only now: p1's first deltas are gone
    merge.relay().delta(delta("p1", "world"));
    merge.durable("text.ended", { partId: "p1", stepId: "s1", text: "Hello world" });
    await handedOut(merge, ["text.started", "text.delta", "text.ended"]);
    expect(merge.texts("p1")).toBe("Hello world"); // one delta made from the end
    await merge.close();
  });
});
