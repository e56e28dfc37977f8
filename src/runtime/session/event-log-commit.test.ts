/**
 * The event log on an asynchronous store: a durable event reaches readers only after its
 * commit, nothing overtakes it, what arrives together is one append, and close writes what is
 * pending.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { event, SESSION, tick } from "../../../test/support/feed-source.js";
import { recordingLogger } from "../../../test/support/recording-logger.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { IN_MEMORY, SqliteStore } from "../../store/sqlite-store.js";
import type { Store } from "../../store/store.js";
import { EventLog } from "./event-log.js";

/** A promise and the function that resolves it (Node 20 has no `Promise.withResolvers`). */
function opened(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** A SQLite store whose appends wait until `release()`, counting the calls it was given. */
function gatedStore() {
  const inner = SqliteStore.open(IN_MEMORY);
  const calls: { events: number; cursor: string | undefined }[] = [];
  const gate = opened();
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === "append") {
        const append: Store["append"] = async (sessionId, events, cursor) => {
          calls.push({ events: events.length, cursor });
          await gate.promise;
          return target.append(sessionId, events, cursor);
        };
        return append;
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    store,
    inner,
    calls,
    /** Lets the held appends, and every later one, through. */
    release() {
      gate.resolve();
    },
  };
}

/** A SQLite store whose every append waits until the test passes it on or fails it. */
function steppedStore() {
  const inner = SqliteStore.open(IN_MEMORY);
  const calls: { ids: string[]; pass(): void; fail(): void }[] = [];
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === "append") {
        const append: Store["append"] = (sessionId, events, cursor) =>
          new Promise((resolve, reject) => {
            calls.push({
              ids: events.map((e) => e.id),
              pass: () => resolve(target.append(sessionId, events, cursor)),
              fail: () => reject(new Error("SQLITE_FULL: database or disk is full")),
            });
          });
        return append;
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  /** Resolves once the store has been called `count` times in all. */
  const called = async (count: number) => {
    while (calls.length < count) await tick();
    return calls[count - 1] as (typeof calls)[number];
  };
  return { store, inner, called };
}

/** Starts reading `log` from the start, collecting what it yields. */
function reader(log: EventLog) {
  const read: CanonicalEvent[] = [];
  const done = (async () => {
    for await (const e of log.read(0)) read.push(e);
  })();
  return { read, done };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("EventLog on an asynchronous store", () => {
  it("hands a durable event out only after its commit, and nothing overtakes it", async () => {
    const gated = gatedStore();
    const log = new EventLog({ store: { store: gated.store, sessionId: SESSION } });
    const { read, done } = reader(log);
    const durable = event(true);
    const delta = event(false);
    const followed: (string | undefined)[] = [];
    log.append(durable, "7", (kept) => followed.push(kept?.id));
    log.append(delta, undefined, (kept) => followed.push(kept?.id));
    await tick();
    await tick();
    // Not committed: no reader, no follower and no lastSeq has it, nor the delta after it.
    expect(read).toEqual([]);
    expect(followed).toEqual([]);
    expect(log.lastSeq).toBe(0);
    gated.release();
    await log.settled();
    await tick();
    expect(read.map((e) => [e.id, e.seq])).toEqual([
      [durable.id, 1],
      [delta.id, undefined],
    ]);
    expect(followed).toEqual([durable.id, delta.id]);
    expect(log.lastSeq).toBe(1);
    await log.close();
    await done;
  });

  it("writes the events appended together (one native event's) in one append", async () => {
    const gated = gatedStore();
    const log = new EventLog({ store: { store: gated.store, sessionId: SESSION } });
    gated.release();
    // A native event's canonical events, as a backend hands them over: one after the other.
    log.append(event(true), "10");
    log.append(event(false), "10");
    log.append(event(true), "10");
    log.append(event(true), "11");
    await log.settled();
    expect(gated.calls).toEqual([{ events: 3, cursor: "11" }]);
    expect(await gated.inner.cursor(SESSION)).toBe("11");
    expect((await gated.inner.read(SESSION)).map((e) => e.seq)).toEqual([1, 2, 3]);
    await log.close();
  });

  it("groups what arrives while a commit is under way into the next append", async () => {
    const gated = gatedStore();
    const log = new EventLog({ store: { store: gated.store, sessionId: SESSION } });
    log.append(event(true), "1");
    await tick();
    for (let i = 0; i < 4; i++) log.append(event(true), String(2 + i));
    await tick();
    expect(gated.calls).toEqual([{ events: 1, cursor: "1" }]);
    gated.release();
    await log.settled();
    expect(gated.calls).toEqual([
      { events: 1, cursor: "1" },
      { events: 4, cursor: "5" },
    ]);
    expect((await gated.inner.read(SESSION)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    await log.close();
  });

  it("writes what is pending when it closes, then ends its readers", async () => {
    const store = SqliteStore.open(IN_MEMORY);
    const log = new EventLog({ store: { store, sessionId: SESSION } });
    const { read, done } = reader(log);
    const pending = [event(true), event(true)];
    for (const e of pending) log.append(e, "3");
    await log.close();
    await done;
    expect(read.map((e) => e.id)).toEqual(pending.map((e) => e.id));
    expect((await store.read(SESSION)).map((e) => e.id)).toEqual(pending.map((e) => e.id));
    expect(await store.cursor(SESSION)).toBe("3");
    await store.close();
  });

  it("a close that stops waiting for a slow commit loses no held event without saying so", async () => {
    const stepped = steppedStore();
    const logger = recordingLogger();
    const log = new EventLog({ store: { store: stepped.store, sessionId: SESSION }, logger });
    const [a, b] = [event(true), event(true)];
    log.append(a, "1");
    (await stepped.called(1)).fail(); // a is held (seq 1)
    await log.settled();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    log.append(b, "2");
    const drainRetry = await stepped.called(2); // the drain writes the held a first: slow
    const closing = log.close();
    await vi.advanceTimersByTimeAsync(10_000); // close stops waiting and gives a a last try
    const closeRetry = await stepped.called(3);
    drainRetry.pass(); // a is kept; the drain goes on to write b
    (await stepped.called(4)).fail(); // b is held (seq 2)
    while (log.unstored === 0) await tick();
    closeRetry.pass(); // a again: kept already
    await closing;
    // b is either in the store or said to be missing from it, never dropped silently.
    const kept = (await stepped.inner.read(SESSION)).map((e) => e.id);
    const lost = logger.entries.find((entry) => entry.message.includes("transcript lacks"));
    expect(kept).toEqual([a.id]);
    expect(lost?.fields).toMatchObject({ from: 2, to: 2 });
    expect(log.unstored).toBe(1);
  });
});
