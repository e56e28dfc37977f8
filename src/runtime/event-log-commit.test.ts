/**
 * The event log on an asynchronous store: a durable event reaches readers only after its
 * commit, nothing overtakes it, what arrives together is one append, and close writes what is
 * pending.
 */
import { describe, expect, it } from "vitest";
import { event, SESSION, tick } from "../../test/support/feed-source.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { IN_MEMORY, SqliteStore } from "../store/sqlite-store.js";
import type { Store } from "../store/store.js";
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

/** Starts reading `log` from the start, collecting what it yields. */
function reader(log: EventLog) {
  const read: CanonicalEvent[] = [];
  const done = (async () => {
    for await (const e of log.read(0)) read.push(e);
  })();
  return { read, done };
}

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
});
