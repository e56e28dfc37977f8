/**
 * ReplayTransport driven directly (no client): small in-memory transcripts, calls through
 * `request()` and `stream()`, and the orderings, failures and timers the replay promises.
 */
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type TimerTracker, trackTimers } from "../../../test/support/timer-tracker.js";
import { AbortError, OpencodeApiError, TimeoutError } from "../../errors.js";
import type { StreamOptions } from "../transport.js";
import { ReplayMismatchError } from "./replay-mismatch-error.js";
import { HANG, ReplayTransport } from "./replay-transport.js";
import {
  type EmitInboundEntry,
  type ExpectOutboundEntry,
  type NumberedEntry,
  parseTranscript,
  type TranscriptEntry,
} from "./transcript.js";

const WORK = "/home/someone/project";
const SUBSCRIBE = "event.subscribe";
const GLOBAL = "global.event";

// --- building transcripts -------------------------------------------------------------------

function call(operation: string, input?: unknown, directory?: string): ExpectOutboundEntry {
  return {
    type: "expect_outbound",
    label: operation,
    frame: {
      type: operation,
      ...(input === undefined ? {} : { input }),
      ...(directory === undefined ? {} : { directory }),
    },
  };
}

function response(operation: string, data: unknown, afterMs?: number): EmitInboundEntry {
  return {
    type: "emit_inbound",
    label: `${operation}.response`,
    frame: { type: "sdk.response", operation, data },
    ...(afterMs === undefined ? {} : { afterMs }),
  };
}

function event(
  label: string,
  options: { stream?: string; afterMs?: number; data?: unknown } = {},
): EmitInboundEntry {
  return {
    type: "emit_inbound",
    label,
    frame: {
      type: "sdk.event",
      event: { type: label, ...(options.data === undefined ? {} : { data: options.data }) },
      ...(options.stream === undefined ? {} : { stream: options.stream }),
    },
    ...(options.afterMs === undefined ? {} : { afterMs: options.afterMs }),
  };
}

const EXIT: TranscriptEntry = { type: "runtime_exit", status: "success" };

/** A transcript as the file would number it: line 1 is the start, entries follow from line 2. */
function transcript(...entries: TranscriptEntry[]): NumberedEntry[] {
  const start: TranscriptEntry = {
    type: "transcript_start",
    provider: "opencode",
    protocol: "unit",
    version: "0",
    scenario: "unit",
  };
  return [start, ...entries].map((entry, index) => ({ line: index + 1, entry }));
}

function replayOf(
  entries: NumberedEntry[],
  options: { timing?: boolean; stallTimeoutMs?: number } = {},
) {
  return new ReplayTransport(entries, { directory: WORK, stallTimeoutMs: 2_000, ...options });
}

// --- driving it ---------------------------------------------------------------------------------

/** A stream read one event at a time, on demand. */
function open(replay: ReplayTransport, operation = SUBSCRIBE, options: StreamOptions = {}) {
  const iterator = replay.stream(() => ({ operation }), options)[Symbol.asyncIterator]();
  return {
    async read(): Promise<unknown> {
      const next = await iterator.next();
      if (next.done) throw new Error("the stream ended");
      return next.value;
    },
    close: async () => {
      await iterator.return?.();
    },
  };
}

/**
 * Reads in the background the way a client does (through two more layers of generators),
 * logging each event's type; `stop()` aborts the stream.
 */
function readInBackground(replay: ReplayTransport, log: string[], operation = SUBSCRIBE) {
  async function* layer<T>(source: AsyncIterable<T>): AsyncIterable<T> {
    for await (const item of source) yield item;
  }
  const controller = new AbortController();
  const stream = replay.stream(() => ({ operation }), { signal: controller.signal });
  const reading = (async () => {
    for await (const item of layer(layer(stream))) {
      log.push(`${operation}: ${(item as { type: string }).type}`);
    }
  })();
  reading.catch(() => {});
  return { stop: () => controller.abort() };
}

/** Whether `promise` has settled after the current macrotask and `ms` more. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await delay(ms);
  return settled;
}

/** `promise`, or a rejection if it has not settled within `ms` (a hang fails fast). */
async function soon<T>(promise: Promise<T>, ms = 1_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What `promise` rejects with (a hang shows as "still pending"). */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return soon(promise).then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

function thrownBy(action: () => void): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

async function until(condition: () => boolean): Promise<void> {
  for (let round = 0; round < 400 && !condition(); round++) await delay(5);
  expect(condition()).toBe(true);
}

// Only the replay's own files: this test file lives in the same folder and has timers too.
let timers: TimerTracker;
beforeEach(() => {
  timers = trackTimers(/src[\\/]transport[\\/]transcript[\\/][\w-]+\.ts/);
});
afterEach(async () => {
  try {
    await timers.settled();
  } finally {
    timers.dispose();
  }
});

describe("ReplayTransport", { timeout: 5_000 }, () => {
  describe("requests", () => {
    it("answers a matching call with the recorded body, placeholders filled in", async () => {
      const replay = replayOf(
        transcript(
          call("session.get", { sessionID: "ses_1" }, "<work>"),
          response("session.get", { data: { id: "ses_1", directory: "<work>", file: "<work>/a" } }),
          EXIT,
        ),
      );
      const body = await replay.request({
        operation: "session.get",
        input: { sessionID: "ses_1", extra: true },
        directory: WORK,
      });
      expect(body).toEqual({ data: { id: "ses_1", directory: WORK, file: `${WORK}/a` } });
      replay.assertComplete();
    });

    it("answers null as undefined (204)", async () => {
      const replay = replayOf(transcript(call("session.delete"), response("session.delete", null)));
      await expect(replay.request({ operation: "session.delete" })).resolves.toBeUndefined();
      replay.assertComplete();
    });

    it("rejects a recorded {status, body} with OpencodeApiError", async () => {
      const replay = replayOf(
        transcript(
          call("session.get"),
          response("session.get", {
            status: 404,
            body: { name: "NotFoundError", data: { message: "no session", directory: "<work>" } },
          }),
        ),
      );
      const error = await rejectionOf(replay.request({ operation: "session.get" }));
      expect(error).toBeInstanceOf(OpencodeApiError);
      expect(error).toMatchObject({
        status: 404,
        errorName: "NotFoundError",
        retryable: false,
        body: { name: "NotFoundError", data: { message: "no session", directory: WORK } },
      });
      replay.assertComplete();
    });

    it("gives a recorded error with an empty body no body, as HTTP does", async () => {
      const replay = replayOf(
        transcript(call("session.get"), response("session.get", { status: 503, body: null })),
      );
      const error = await rejectionOf(replay.request({ operation: "session.get" }));
      expect(error).toBeInstanceOf(OpencodeApiError);
      expect(error).toMatchObject({ status: 503, retryable: true, body: undefined });
    });

    it("treats a body that only looks like an error as data", async () => {
      const data = { status: 200, body: "fine" };
      const replay = replayOf(transcript(call("x"), response("x", data)));
      await expect(replay.request({ operation: "x" })).resolves.toEqual(data);
    });

    it('never answers "<hang>": the call times out, then the replay goes on', async () => {
      const replay = replayOf(
        transcript(
          call("session.get"),
          response("session.get", HANG),
          call("health"),
          response("health", true),
        ),
      );
      const error = await rejectionOf(
        replay.request({ operation: "session.get" }, { timeoutMs: 50 }),
      );
      expect(error).toBeInstanceOf(TimeoutError);
      expect(replay.failure).toBeUndefined();
      await expect(replay.request({ operation: "health" })).resolves.toBe(true);
      replay.assertComplete();
    });

    it('never answers "<hang>": the caller\'s signal ends the call with AbortError', async () => {
      const replay = replayOf(transcript(call("session.get"), response("session.get", HANG)));
      const controller = new AbortController();
      const answer = replay.request({ operation: "session.get" }, { signal: controller.signal });
      expect(await settledWithin(answer, 30)).toBe(false);
      controller.abort();
      expect(await rejectionOf(answer)).toBeInstanceOf(AbortError);
      replay.assertComplete();
    });

    it("rejects a call whose signal has already fired at once, without using up the recorded call", async () => {
      const replay = replayOf(transcript(call("session.get"), response("session.get", HANG), EXIT));
      const controller = new AbortController();
      controller.abort();
      const answer = replay.request({ operation: "session.get" }, { signal: controller.signal });
      expect(await rejectionOf(answer)).toBeInstanceOf(AbortError);
      expect(thrownBy(() => replay.assertComplete())).toMatchObject({ line: 2 });
    });

    it("fails a call with the wrong operation or input, naming the recorded line", async () => {
      const replay = replayOf(
        transcript(
          call("a"),
          response("a", 1),
          call("b", { sessionID: "ses_1" }),
          response("b", 2),
        ),
      );
      await replay.request({ operation: "a" });
      const error = await rejectionOf(
        replay.request({ operation: "b", input: { sessionID: "ses_2" } }),
      );
      expect(error).toBeInstanceOf(ReplayMismatchError);
      expect(error).toMatchObject({ line: 4, label: "b" });
      expect((error as Error).message).toMatch(/input.sessionID differs/);
    });

    it("fails a call of another operation, naming the recorded line", async () => {
      const replay = replayOf(transcript(call("a"), response("a", 1)));
      const error = await rejectionOf(replay.request({ operation: "b" }));
      expect(error).toBeInstanceOf(ReplayMismatchError);
      expect(error).toMatchObject({ line: 2, label: "a", actual: { type: "b" } });
      expect((error as Error).message).toMatch(/expected the call a, the client made b/);
    });

    it("fails a call made for another directory", async () => {
      const replay = replayOf(transcript(call("a", undefined, "<work>"), response("a", 1)));
      const error = await rejectionOf(replay.request({ operation: "a", directory: "/elsewhere" }));
      expect(error).toBeInstanceOf(ReplayMismatchError);
      expect((error as Error).message).toMatch(/directory differs/);
    });
  });

  describe("events and ordering", () => {
    it("delivers events to the subscriber in file order", async () => {
      const replay = replayOf(
        transcript(call(SUBSCRIBE), event("one"), event("two"), event("three"), EXIT),
      );
      const stream = open(replay);
      expect([await stream.read(), await stream.read(), await stream.read()]).toEqual([
        { type: "one" },
        { type: "two" },
        { type: "three" },
      ]);
      replay.assertComplete();
      await stream.close();
    });

    it("resolves a response recorded after events only once the subscriber read them", async () => {
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          call("session.prompt"),
          event("one"),
          event("two"),
          response("session.prompt", { ok: true }),
          event("three"),
          EXIT,
        ),
      );
      const log: string[] = [];
      const reader = readInBackground(replay, log);
      await delay(5);
      const body = await replay.request({ operation: "session.prompt" });
      log.push(`response: ${JSON.stringify(body)}`);
      await until(() => log.length === 4);
      expect(log).toEqual([
        `${SUBSCRIBE}: one`,
        `${SUBSCRIBE}: two`,
        'response: {"ok":true}',
        `${SUBSCRIBE}: three`,
      ]);
      replay.assertComplete();
      reader.stop();
    });

    it("holds a call made while recorded events are unread until the subscriber reads them", async () => {
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          event("one"),
          event("two"),
          call("session.get"),
          response("session.get", "answer"),
          EXIT,
        ),
        { stallTimeoutMs: 5_000 },
      );
      const log: string[] = [];
      const stream = open(replay);
      log.push(`read ${JSON.stringify(await stream.read())}`);
      const answer = replay.request({ operation: "session.get" }).then((body) => {
        log.push(`answer ${String(body)}`);
      });
      expect(await settledWithin(answer, 40)).toBe(false);
      // The stall watch runs while the call waits (set after the replay's setImmediate).
      await vi.waitFor(() => expect(timers.live()).toBeGreaterThan(0), {
        timeout: 2000,
        interval: 5,
      });
      log.push(`read ${JSON.stringify(await stream.read())}`);
      await answer;
      expect(log).toEqual(['read {"type":"one"}', 'read {"type":"two"}', "answer answer"]);
      replay.assertComplete();
      await stream.close();
      // The stall watch did not fire, and it is gone: `afterEach` checks no timer is left.
    });

    it("fails a call held behind events nobody reads after stallTimeoutMs, naming the event's line", async () => {
      const replay = replayOf(
        transcript(call(SUBSCRIBE), event("one"), event("two"), call("session.get"), EXIT),
        { stallTimeoutMs: 50 },
      );
      const stream = open(replay);
      await stream.read();
      const error = await rejectionOf(replay.request({ operation: "session.get" }));
      expect(error).toBeInstanceOf(ReplayMismatchError);
      expect(error).toMatchObject({ line: 4, label: "two" });
      expect((error as Error).message).toMatch(/session.get .*not read by any stream for 50 ms/);
      expect(replay.failure).toBe(error);
      // The stream that did not read fails too, with the same error.
      expect(await rejectionOf(stream.read())).toBe(error);
    });

    it("fails a call whose answer is recorded behind events nobody reads, instead of hanging", async () => {
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          event("one"),
          call("session.prompt"),
          event("two"),
          response("session.prompt", 1),
        ),
        { stallTimeoutMs: 50 },
      );
      const stream = open(replay);
      await stream.read();
      // The call matches at once; its answer comes after "two", which nobody reads.
      const error = await rejectionOf(replay.request({ operation: "session.prompt" }));
      expect(error).toBeInstanceOf(ReplayMismatchError);
      expect(error).toMatchObject({ line: 5, label: "two" });
      expect((error as Error).message).toMatch(/waits for the answer to session.prompt/);
      expect(await rejectionOf(stream.read())).toBe(error);
    });

    it("answers a call recorded behind events once they are read", async () => {
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          event("one"),
          call("session.prompt"),
          event("two"),
          response("session.prompt", 1),
          EXIT,
        ),
        { stallTimeoutMs: 5_000 },
      );
      const stream = open(replay);
      await stream.read();
      const answer = replay.request({ operation: "session.prompt" });
      expect(await settledWithin(answer, 40)).toBe(false);
      await stream.read();
      await expect(answer).resolves.toBe(1);
      replay.assertComplete();
      await stream.close();
    });

    it("routes frame.stream events to the stream opened with that operation", async () => {
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          call(GLOBAL),
          event("a1", { stream: SUBSCRIBE }),
          event("g1", { stream: GLOBAL }),
          event("a2", { stream: SUBSCRIBE }),
          event("latest"), // no stream: the latest opened
          event("g2", { stream: GLOBAL }),
          EXIT,
        ),
      );
      const log: string[] = [];
      const readers = [readInBackground(replay, log, SUBSCRIBE)];
      await delay(5);
      readers.push(readInBackground(replay, log, GLOBAL));
      await until(() => log.length === 5);
      expect(log.filter((line) => line.startsWith(`${SUBSCRIBE}:`))).toEqual([
        `${SUBSCRIBE}: a1`,
        `${SUBSCRIBE}: a2`,
      ]);
      expect(log.filter((line) => line.startsWith(`${GLOBAL}:`))).toEqual([
        `${GLOBAL}: g1`,
        `${GLOBAL}: latest`,
        `${GLOBAL}: g2`,
      ]);
      replay.assertComplete();
      for (const reader of readers) reader.stop();
    });

    it("does not give an event to another stream while its own does not read", async () => {
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          event("a0", { stream: SUBSCRIBE }),
          call(GLOBAL),
          event("a1", { stream: SUBSCRIBE }),
          event("g1", { stream: GLOBAL }),
          EXIT,
        ),
      );
      const own = open(replay, SUBSCRIBE);
      const other = open(replay, GLOBAL);
      await expect(own.read()).resolves.toEqual({ type: "a0" });
      const otherFirst = other.read(); // opens global.event, then waits while a1 is unread
      expect(await settledWithin(otherFirst, 30)).toBe(false);
      await expect(own.read()).resolves.toEqual({ type: "a1" });
      await expect(otherFirst).resolves.toEqual({ type: "g1" });
      replay.assertComplete();
      await Promise.all([own.close(), other.close()]);
    });
  });

  describe("client-chosen ids", () => {
    it("matches a new id for a recorded one and gives later frames the new id", async () => {
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          call("session.prompt", {
            sessionID: "ses_1",
            id: "msg_old",
            parts: [{ partID: "prt_old" }],
          }),
          response("session.prompt", { data: { id: "msg_old", parts: [{ id: "prt_old" }] } }),
          event("message.updated", { data: { messageID: "msg_old", partID: "prt_old" } }),
          call("session.message", { messageID: "msg_old" }),
          response("session.message", { data: { id: "msg_old", sessionID: "ses_1" } }),
          EXIT,
        ),
      );
      const stream = open(replay);
      const firstEvent = stream.read();
      const prompted = await replay.request({
        operation: "session.prompt",
        input: { sessionID: "ses_1", id: "msg_new", parts: [{ partID: "prt_new" }] },
      });
      expect(prompted).toEqual({ data: { id: "msg_new", parts: [{ id: "prt_new" }] } });
      expect(await firstEvent).toEqual({
        type: "message.updated",
        data: { messageID: "msg_new", partID: "prt_new" },
      });
      const message = await replay.request({
        operation: "session.message",
        input: { messageID: "msg_new" },
      });
      expect(message).toEqual({ data: { id: "msg_new", sessionID: "ses_1" } });
      replay.assertComplete();
      await stream.close();
    });

    it("fails when a remapped id comes back as another id", async () => {
      const replay = replayOf(
        transcript(
          call("session.prompt", { messageID: "msg_old" }),
          response("session.prompt", null),
          call("session.message", { messageID: "msg_old" }),
          response("session.message", null),
        ),
      );
      await replay.request({ operation: "session.prompt", input: { messageID: "msg_new" } });
      const error = await rejectionOf(
        replay.request({ operation: "session.message", input: { messageID: "msg_other" } }),
      );
      expect(error).toMatchObject({ line: 4 });
      expect((error as Error).message).toMatch(/messageID differs/);
    });

    it("fails an id with another prefix", async () => {
      const replay = replayOf(transcript(call("session.prompt", { messageID: "msg_old" })));
      const error = await rejectionOf(
        replay.request({ operation: "session.prompt", input: { messageID: "prt_new" } }),
      );
      expect(error).toBeInstanceOf(ReplayMismatchError);
      expect(error).toMatchObject({ line: 2 });
    });
  });

  describe("timing", () => {
    it("waits each entry's afterMs with timing: true", async () => {
      const replay = replayOf(
        transcript(call(SUBSCRIBE), event("one"), event("two", { afterMs: 120 }), EXIT),
        { timing: true },
      );
      const stream = open(replay);
      await stream.read();
      const started = performance.now();
      const second = stream.read();
      expect(await settledWithin(second, 40)).toBe(false);
      await expect(second).resolves.toEqual({ type: "two" });
      expect(performance.now() - started).toBeGreaterThanOrEqual(100);
      replay.assertComplete();
      await stream.close();
    });

    it("delays a response by its afterMs, and what follows it comes after it", async () => {
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          call("session.get"),
          response("session.get", "late", 100),
          event("after"),
          EXIT,
        ),
        { timing: true },
      );
      const log: string[] = [];
      const reader = readInBackground(replay, log);
      await delay(5);
      const started = performance.now();
      const body = await replay.request({ operation: "session.get" });
      log.push(`response: ${String(body)}`);
      expect(performance.now() - started).toBeGreaterThanOrEqual(80);
      await until(() => log.length === 2);
      expect(log).toEqual(["response: late", `${SUBSCRIBE}: after`]);
      replay.assertComplete();
      reader.stop();
    });

    it("ignores afterMs with timing: false", async () => {
      // Were afterMs honoured, this would outlast the test's timeout.
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          event("one", { afterMs: 60_000 }),
          call("x"),
          response("x", 1, 60_000),
          EXIT,
        ),
      );
      const stream = open(replay);
      await expect(stream.read()).resolves.toEqual({ type: "one" });
      await expect(replay.request({ operation: "x" })).resolves.toBe(1);
      replay.assertComplete();
      await stream.close();
    });
  });

  describe("the end, and after a mismatch", () => {
    it("fails a call made after runtime_exit, naming that line", async () => {
      const replay = replayOf(transcript(call("a"), response("a", 1), EXIT));
      await replay.request({ operation: "a" });
      replay.assertComplete();
      const error = await rejectionOf(replay.request({ operation: "b" }));
      expect(error).toBeInstanceOf(ReplayMismatchError);
      expect(error).toMatchObject({ line: 4, label: "end" });
      expect((error as Error).message).toMatch(/the transcript has ended.*\(b\)/);
      expect(() => replay.assertComplete()).toThrow(error as Error);
    });

    it("fails a call made past the last entry of a transcript without runtime_exit", async () => {
      const replay = replayOf(transcript(call("a"), response("a", 1)));
      await replay.request({ operation: "a" });
      const error = await rejectionOf(replay.request({ operation: "a" }));
      expect(error).toMatchObject({ line: 3, label: "end" });
    });

    it("fails a stream opened after the end", async () => {
      const replay = replayOf(transcript(EXIT));
      expect(await rejectionOf(open(replay).read())).toBeInstanceOf(ReplayMismatchError);
    });

    it("assertComplete names the first unconsumed line", async () => {
      const replay = replayOf(
        transcript(call("a"), response("a", 1), call("b"), response("b", 2), EXIT),
      );
      expect(thrownBy(() => replay.assertComplete())).toMatchObject({ line: 2, label: "a" });
      await replay.request({ operation: "a" });
      const error = thrownBy(() => replay.assertComplete());
      expect(error).toBeInstanceOf(ReplayMismatchError);
      expect(error).toMatchObject({ line: 4, label: "b" });
      expect((error as Error).message).toMatch(/2 recorded entries not consumed/);
      await replay.request({ operation: "b" });
      replay.assertComplete();
    });

    it("assertComplete names an event nobody read", async () => {
      const replay = replayOf(transcript(call(SUBSCRIBE), event("one"), event("two"), EXIT));
      const stream = open(replay);
      await stream.read();
      expect(thrownBy(() => replay.assertComplete())).toMatchObject({ line: 4, label: "two" });
      await stream.close();
    });

    it("after a mismatch, fails every later call, stream and waiting reader with the same error", async () => {
      const replay = replayOf(
        transcript(call(SUBSCRIBE), call("a"), response("a", 1), event("one"), EXIT),
      );
      const stream = open(replay);
      const waiting = stream.read();
      await delay(5); // the reader now waits for "one"
      const error = await rejectionOf(replay.request({ operation: "wrong" }));
      expect(error).toBeInstanceOf(ReplayMismatchError);
      expect(error).toMatchObject({ line: 3 });
      expect(await rejectionOf(waiting)).toBe(error);
      expect(await rejectionOf(replay.request({ operation: "a" }))).toBe(error);
      expect(await rejectionOf(open(replay).read())).toBe(error);
      expect(thrownBy(() => replay.assertComplete())).toBe(error);
      expect(replay.failure).toBe(error);
    });

    it("fails a call waiting in line behind a mismatching one with the same error", async () => {
      const replay = replayOf(
        transcript(call(SUBSCRIBE), event("one"), event("two"), call("a"), response("a", 1)),
      );
      const stream = open(replay);
      await stream.read();
      // Both calls wait for "two" to be read; then the first does not match.
      const wrong = replay.request({ operation: "b" });
      const behind = replay.request({ operation: "a" });
      await expect(stream.read()).resolves.toEqual({ type: "two" });
      const error = await rejectionOf(wrong);
      expect(error).toMatchObject({ line: 5 });
      expect(await rejectionOf(behind)).toBe(error);
    });
  });

  describe("aborting streams", () => {
    it("ends a reader with AbortError when its signal fires, and the replay goes on", async () => {
      const replay = replayOf(
        transcript(call(SUBSCRIBE), event("one"), call(SUBSCRIBE), event("two"), EXIT),
      );
      const controller = new AbortController();
      const first = open(replay, SUBSCRIBE, { signal: controller.signal });
      await first.read();
      const waiting = first.read();
      controller.abort();
      expect(await rejectionOf(waiting)).toBeInstanceOf(AbortError);
      const second = open(replay);
      await expect(second.read()).resolves.toEqual({ type: "two" });
      replay.assertComplete();
      await second.close();
    });

    it("rejects a stream whose signal has already fired without using up its recorded call", async () => {
      const replay = replayOf(transcript(call(SUBSCRIBE), EXIT));
      const controller = new AbortController();
      controller.abort();
      const stream = open(replay, SUBSCRIBE, { signal: controller.signal });
      expect(await rejectionOf(stream.read())).toBeInstanceOf(AbortError);
      expect(thrownBy(() => replay.assertComplete())).toMatchObject({ line: 2 });
    });

    it("gives no events to a stream aborted before its call was matched", async () => {
      const replay = replayOf(
        transcript(
          call(SUBSCRIBE),
          event("one"),
          event("two"),
          call(GLOBAL), // made (and aborted) while "two" was unread
          event("three"),
          EXIT,
        ),
      );
      const stream = open(replay);
      await stream.read();
      const controller = new AbortController();
      const aborted = open(replay, GLOBAL, { signal: controller.signal }).read();
      controller.abort();
      expect(await rejectionOf(aborted)).toBeInstanceOf(AbortError);
      // "two" lets the recorded global.event call match; "three" has no stream named and must
      // go to the stream still open, not to the aborted one.
      await expect(soon(stream.read())).resolves.toEqual({ type: "two" });
      await expect(soon(stream.read())).resolves.toEqual({ type: "three" });
      replay.assertComplete();
      await stream.close();
    });
  });

  // Besides these, `afterEach` checks that no test leaves a replay timer behind.
  describe("timers", () => {
    it("leaves no stall watch once the waiting call went through", async () => {
      const replay = replayOf(
        transcript(call(SUBSCRIBE), event("one"), event("two"), call("a"), response("a", 1)),
        { stallTimeoutMs: 60_000 },
      );
      const stream = open(replay);
      await stream.read();
      const answer = replay.request({ operation: "a" });
      // The watch is set once the replay's setImmediate after "one" has run: waited for, since
      // on a loaded machine a short sleep can end first (a late event loop runs due timers
      // before immediates), which once failed this test.
      await vi.waitFor(() => expect(timers.live()).toBe(1), { timeout: 2000, interval: 5 });
      await stream.read();
      await expect(answer).resolves.toBe(1);
      await timers.settled();
      replay.assertComplete();
    });

    it("leaves none after a stall that fired", async () => {
      const replay = replayOf(transcript(call(SUBSCRIBE), event("one"), event("two"), call("a")), {
        stallTimeoutMs: 30,
      });
      const stream = open(replay);
      await stream.read();
      await expect(replay.request({ operation: "a" })).rejects.toBeInstanceOf(ReplayMismatchError);
      await timers.settled();
    });

    it("leaves none after a timed replay", async () => {
      const replay = replayOf(
        transcript(call(SUBSCRIBE), event("one", { afterMs: 20 }), call("a"), response("a", 1, 20)),
        { timing: true },
      );
      const stream = open(replay);
      await stream.read();
      await expect(replay.request({ operation: "a" })).resolves.toBe(1);
      await timers.settled();
      replay.assertComplete();
    });

    it("leaves none after a call bounded by timeoutMs", async () => {
      const replay = replayOf(transcript(call("a"), response("a", HANG)));
      await expect(replay.request({ operation: "a" }, { timeoutMs: 30 })).rejects.toBeInstanceOf(
        TimeoutError,
      );
      await timers.settled();
    });
  });

  it("reads a transcript from NDJSON text", async () => {
    const entries = parseTranscript(
      [
        JSON.stringify(call("a")),
        "",
        JSON.stringify(response("a", { directory: "<workspace>" })),
        JSON.stringify(call("b")),
      ].join("\n"),
    );
    const replay = replayOf(entries);
    await expect(replay.request({ operation: "a" })).resolves.toEqual({ directory: WORK });
    expect(thrownBy(() => replay.assertComplete())).toMatchObject({ line: 4 });
  });
});
