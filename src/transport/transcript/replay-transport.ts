/**
 * A transport that stands in for an OpenCode server by replaying a transcript at the
 * operation level. Each call the client makes must match the next recorded call; it is
 * answered with the recorded response; recorded events reach the stream subscriber in file
 * order. One cursor walks the file, so the races between HTTP answers and stream events
 * replay exactly as recorded: a call made before the events recorded ahead of it were read
 * waits for the subscriber to read them.
 */

import { setImmediate } from "node:timers";
import { AbortError } from "../../errors.js";
import { sleep, withDeadline } from "../../util/abort.js";
import { assertNever } from "../../util/assert-never.js";
import type { CallOptions, OperationCall, StreamOptions, Transport } from "../transport.js";
import { recordedAnswer } from "./recorded-answer.js";
import { ReplayMismatchError } from "./replay-mismatch-error.js";
import { ReplaySubscription } from "./replay-subscription.js";
import { findMismatch, type MatchContext, rewriteForRun } from "./structural-match.js";
import {
  type EmitInboundEntry,
  type ExpectOutboundEntry,
  type NumberedEntry,
  readTranscript,
} from "./transcript.js";

export interface ReplayOptions {
  /** The working directory `"<work>"` and `"<workspace>"` stand for in this run. */
  directory: string;
  /** Wait each entry's `afterMs` before delivering it (default false: as fast as possible). */
  timing?: boolean;
  /**
   * A call that waits this long for recorded events nobody reads fails with a
   * ReplayMismatchError instead of hanging (default 5000 ms).
   */
  stallTimeoutMs?: number;
}

export { HANG } from "./recorded-answer.js";

interface PendingCall {
  call: OperationCall;
  kind: "request" | "stream";
  matched(): void;
  fail(error: Error): void;
}

interface InFlight {
  operation: string;
  call: OperationCall;
  resolve(data: unknown): void;
  reject(error: Error): void;
}

export class ReplayTransport implements Transport {
  readonly #entries: NumberedEntry[];
  readonly #context: MatchContext;
  readonly #timing: boolean;
  readonly #stallTimeoutMs: number;
  #cursor = 0;
  readonly #pending: PendingCall[] = [];
  readonly #inFlight: InFlight[] = [];
  readonly #subscriptions: ReplaySubscription[] = [];
  #failure: ReplayMismatchError | undefined;
  #delaying = false;
  #stallTimer: NodeJS.Timeout | undefined;

  /** Replays `transcript`: parsed entries, or the path of an NDJSON file. */
  constructor(transcript: NumberedEntry[] | string, options: ReplayOptions) {
    const entries = typeof transcript === "string" ? readTranscript(transcript) : transcript;
    this.#entries = entries.filter(({ entry }) => entry.type !== "transcript_start");
    this.#context = { directory: options.directory, remaps: new Map() };
    this.#timing = options.timing ?? false;
    this.#stallTimeoutMs = options.stallTimeoutMs ?? 5_000;
  }

  async request(call: OperationCall, options: CallOptions = {}): Promise<unknown> {
    const deadline = withDeadline(
      `replayed ${call.operation}`,
      options.timeoutMs ?? Number.POSITIVE_INFINITY,
      options.signal,
    );
    try {
      const answer = new Promise<unknown>((resolve, reject) => {
        // Like fetch: a call already aborted is never made, so it uses up no recorded call.
        if (deadline.signal.aborted) {
          reject(deadline.signal.reason);
          return;
        }
        this.#enqueue({
          call,
          kind: "request",
          matched: () => this.#inFlight.push({ operation: call.operation, call, resolve, reject }),
          fail: reject,
        });
        deadline.signal.addEventListener("abort", () => reject(deadline.signal.reason), {
          once: true,
        });
      });
      return await answer;
    } catch (error) {
      throw deadline.classify(error);
    } finally {
      deadline.dispose();
    }
  }

  async *stream(next: () => OperationCall, options: StreamOptions = {}): AsyncIterable<unknown> {
    const { signal } = options;
    const call = next();
    const subscription = new ReplaySubscription(call.operation);
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new AbortError(`replayed ${call.operation}`));
        return;
      }
      this.#enqueue({
        call,
        kind: "stream",
        matched: () => {
          this.#subscriptions.push(subscription);
          resolve();
        },
        fail: reject,
      });
      signal?.addEventListener(
        "abort",
        () => {
          // Its recorded call may still match later; its events must then go elsewhere.
          subscription.close();
          reject(new AbortError(`replayed ${call.operation}`));
        },
        { once: true },
      );
    });
    try {
      for (;;) {
        yield await this.#pull(subscription, signal);
      }
    } finally {
      subscription.close();
    }
  }

  /** Throws if the replay went wrong or the transcript has entries the client never reached. */
  assertComplete(): void {
    if (this.#failure) throw this.#failure;
    const rest = this.#entries
      .slice(this.#cursor)
      .filter(({ entry }) => entry.type !== "runtime_exit");
    const unconsumed = rest[0];
    if (unconsumed === undefined) return;
    const { line, entry } = unconsumed;
    throw new ReplayMismatchError({
      line,
      label: labelOf(unconsumed),
      expected: entry,
      actual: undefined,
      reason: `the replay ended with ${rest.length} recorded entries not consumed`,
    });
  }

  /** The first mismatch, if the replay has gone wrong. */
  get failure(): ReplayMismatchError | undefined {
    return this.#failure;
  }

  #enqueue(pending: PendingCall): void {
    if (this.#failure) {
      pending.fail(this.#failure);
      return;
    }
    this.#pending.push(pending);
    this.#pump();
  }

  #pull(subscription: ReplaySubscription, signal: AbortSignal | undefined): Promise<unknown> {
    const next = subscription.next(signal);
    this.#pump();
    return next;
  }

  /** Walks the cursor as far as the client's calls and reads allow. */
  #pump(): void {
    if (this.#delaying) return;
    while (this.#failure === undefined) {
      const current = this.#entries[this.#cursor];
      if (current === undefined || current.entry.type === "runtime_exit") {
        this.#failAllPending(current?.line ?? this.#lastLine(), "the transcript has ended");
        break;
      }
      const { entry, line } = current;
      if (entry.type === "transcript_start") {
        this.#cursor++;
        continue;
      }
      if (this.#timing && entry.type === "emit_inbound" && (entry.afterMs ?? 0) > 0) {
        if (!this.#waitBefore(entry)) break;
      }
      const advanced =
        entry.type === "expect_outbound"
          ? this.#matchCall(entry, line)
          : this.#deliver(entry, line);
      if (!advanced) break;
      this.#cursor++;
      if (entry.type === "emit_inbound") {
        this.#settleBeforeNext();
        break;
      }
    }
    this.#watchForStall();
  }

  /**
   * Goes on with the next entry only after a macrotask, so that whoever got this one has seen
   * it through all its awaits first: a response recorded after an event then reaches the caller
   * after the event reached the subscriber, however many async layers each passes through.
   * (The `node:timers` import keeps this a real macrotask under fake timers.)
   */
  #settleBeforeNext(): void {
    this.#delaying = true;
    setImmediate(() => {
      this.#delaying = false;
      this.#pump();
    });
  }

  /** True once `afterMs` has passed for the entry at the cursor (then it may be delivered). */
  #waitBefore(entry: EmitInboundEntry): boolean {
    const waited = this.#waitedFor;
    if (waited === entry) return true;
    this.#delaying = true;
    void sleep(entry.afterMs ?? 0).then(() => {
      this.#delaying = false;
      this.#waitedFor = entry;
      this.#pump();
    });
    return false;
  }
  #waitedFor: EmitInboundEntry | undefined;

  #matchCall(entry: ExpectOutboundEntry, line: number): boolean {
    const pending = this.#pending.shift();
    if (pending === undefined) return false;
    const { call } = pending;
    const actual = {
      type: call.operation,
      ...(call.input === undefined ? {} : { input: call.input }),
      ...(call.directory === undefined ? {} : { directory: call.directory }),
    };
    const reason =
      entry.frame.type !== call.operation
        ? `expected the call ${entry.frame.type}, the client made ${call.operation}`
        : this.#describeMismatch(entry, actual);
    if (reason !== undefined) {
      this.#fail(
        new ReplayMismatchError({
          line,
          label: entry.label,
          expected: entry.frame,
          actual,
          reason,
        }),
        pending,
      );
      return false;
    }
    pending.matched();
    return true;
  }

  #describeMismatch(
    entry: ExpectOutboundEntry,
    actual: { input?: unknown; directory?: string },
  ): string | undefined {
    const recorded = { input: entry.frame.input, directory: entry.frame.directory };
    const mismatch = findMismatch(
      Object.fromEntries(Object.entries(recorded).filter(([, value]) => value !== undefined)),
      actual,
      this.#context,
    );
    if (mismatch === undefined) return undefined;
    return `${mismatch.path || "the call"} differs: recorded ${JSON.stringify(mismatch.expected)}, got ${JSON.stringify(mismatch.actual)}`;
  }

  #deliver(entry: EmitInboundEntry, line: number): boolean {
    const { frame } = entry;
    if (frame.type === "sdk.response") {
      const index = this.#inFlight.findIndex((flight) => flight.operation === frame.operation);
      if (index === -1) {
        this.#fail(
          new ReplayMismatchError({
            line,
            label: entry.label,
            expected: frame,
            actual: undefined,
            reason: `a response to ${frame.operation} is recorded here, but no such call is waiting`,
          }),
        );
        return false;
      }
      const [flight] = this.#inFlight.splice(index, 1);
      if (flight) this.#answer(flight, frame.data);
      return true;
    }
    const subscription = this.#subscriberFor(frame.stream);
    if (subscription?.waiting !== true) return false;
    subscription.deliver(rewriteForRun(frame.event, this.#context));
    return true;
  }

  #answer(flight: InFlight, data: unknown): void {
    const answer = recordedAnswer(data, flight.operation, this.#context);
    switch (answer.kind) {
      case "value":
        flight.resolve(answer.value);
        return;
      case "error":
        flight.reject(answer.error);
        return;
      case "hang":
        return; // the caller's bound or signal ends the call
      default:
        assertNever(answer);
    }
  }

  /** The stream an event goes to: the named one, else the latest opened. */
  #subscriberFor(stream: string | undefined): ReplaySubscription | undefined {
    const candidates = this.#subscriptions.filter(
      (subscription) =>
        !subscription.closed && (stream === undefined || subscription.operation === stream),
    );
    return candidates.at(-1);
  }

  /**
   * A call waiting while the cursor sits on events nobody reads would hang: fail it instead.
   * That is a call not yet matched, or a matched one whose answer is recorded after them.
   */
  #watchForStall(): void {
    clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
    const waiting = this.#pending.length > 0 || this.#inFlight.length > 0;
    if (!waiting || this.#failure || this.#delaying) return;
    const current = this.#entries[this.#cursor];
    if (current?.entry.type !== "emit_inbound") return;
    const cursorAt = this.#cursor;
    this.#stallTimer = setTimeout(() => {
      if (this.#cursor !== cursorAt) return;
      const pending = this.#pending[0]?.call;
      const call = pending ?? this.#inFlight[0]?.call;
      if (call === undefined) return;
      const what = pending ? "made" : "waits for the answer to";
      this.#fail(
        new ReplayMismatchError({
          line: current.line,
          label: labelOf(current),
          expected: current.entry,
          actual: call,
          reason:
            `the client ${what} ${call.operation} while the recorded events from this line on ` +
            `were not read by any stream for ${this.#stallTimeoutMs} ms`,
        }),
      );
    }, this.#stallTimeoutMs);
    this.#stallTimer.unref();
  }

  #failAllPending(line: number, reason: string): void {
    const pending = this.#pending[0];
    // A call matched earlier whose answer the transcript never recorded would wait forever
    // (a recorded "<hang>" is different: it was taken out of the in-flight list).
    const unanswered = this.#inFlight[0];
    if (pending === undefined && unanswered === undefined) return;
    const call = pending?.call ?? unanswered?.call;
    this.#fail(
      new ReplayMismatchError({
        line,
        label: "end",
        expected: undefined,
        actual: call,
        reason:
          pending !== undefined
            ? `${reason}, but the client made another call (${pending.call.operation})`
            : `${reason} without an answer to ${call?.operation}`,
      }),
    );
  }

  #fail(error: ReplayMismatchError, first?: PendingCall): void {
    this.#failure ??= error;
    first?.fail(error);
    for (const pending of this.#pending.splice(0)) pending.fail(error);
    for (const flight of this.#inFlight.splice(0)) flight.reject(error);
    for (const subscription of this.#subscriptions) subscription.fail(error);
    clearTimeout(this.#stallTimer);
  }

  #lastLine(): number {
    return this.#entries.at(-1)?.line ?? 0;
  }
}

function labelOf({ entry }: NumberedEntry): string {
  return entry.type === "expect_outbound" || entry.type === "emit_inbound"
    ? entry.label
    : entry.type;
}
