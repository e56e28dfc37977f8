/**
 * One session's native `/api` events from the serve's two streams, merged: everything from
 * the durable per-session stream (whole values, in seq order, resumed after the last seq read
 * without duplicates), plus, from the live global stream (one connection shared by the
 * sessions open at the location: live-stream.ts), this session's deltas and the events that
 * exist only there (permission asks). The durable stream stays the authority: a delta that is
 * lost on the live side costs latency, never text, because the whole value arrives as a
 * durable event.
 *
 * The durable stream is held only while it is needed: a session that has been idle for
 * `lingerMs` closes it (an idle session then holds no connection of its own), and it opens
 * again, from the last seq read, when the session acts (`wake()`: a prompt, a reply) or when
 * the live stream shows an event of the session (it carries the durable events too: someone
 * else prompted, a queued turn started, a title changed). Nothing is lost while it is closed:
 * the server keeps the log, and the stream resumes from the cursor. A live reconnect does not
 * wake the idle sessions (a thousand of them would open a thousand streams at once): news an
 * idle session missed while the live stream was away is read when it next acts or when the
 * live stream next shows an event of it.
 */

import { AbortError } from "../../errors.js";
import { serveNativeOf } from "../../events/build.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { type ApiEvent, apiEventDurableSeq } from "../../opencode-protocol/api/events.js";
import type { Parsed } from "../../opencode-protocol/common.js";
import type { StreamConnectionChange } from "../../transport/transport.js";
import { AsyncQueue } from "../../util/async-queue.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import type { SharedStream } from "../shared-stream.js";
import { LIVE_ONLY_TYPES, sharedLiveStream } from "./live-stream.js";

/** How long an idle session keeps its durable stream (late events of a turn come on it). */
export const DURABLE_LINGER_MS = 10_000;

export interface MergedStreamOptions {
  sessionId: string;
  /** Resume the durable stream after this native seq (0: from the start). */
  after: number;
  /** Closes both streams; the iteration then throws `AbortError`. */
  signal: AbortSignal;
  directory?: string;
  /** Bound on silence before a stream counts as dropped (heartbeats count). */
  idleTimeoutMs?: number;
  /** How long the durable stream stays open once the session is idle (default 10 s). */
  lingerMs?: number;
  logger?: Logger;
  /**
   * Called each time the live stream (re)connects. Deltas sent before it are lost, so a caller
   * should not prompt before the first call.
   */
  onLiveConnected?: () => void;
  /**
   * Called once per live connection with the native id of the first event it passed on from
   * the server's subscription (`SharedStreamListener.heard`): every event made after that one
   * comes on the connection; one made before may have been lost (`DeltaCatchUp.liveHeard`).
   */
  onLiveHeard?: (heardId: string | undefined) => void;
  /**
   * Told how each stream's connection fares (see `StreamOptions.onConnection`); `closed` when
   * the durable stream was closed on purpose (whatever it reported before no longer holds).
   */
  onConnection?: (stream: MergedStreamName, change: StreamConnectionChange | "closed") => void;
}

export type MergedStreamName = "durable" | "live";

export interface MergedEvent {
  source: "durable" | "live";
  parsed: Parsed<ApiEvent>;
}

/** What the live connection said of itself: queued with the events, so that it is read in its place. */
type LiveSignal = { live: "connected" } | { live: "heard"; heardId: string | undefined };

export class MergedSessionStream {
  readonly #client: OpencodeClient;
  readonly #options: MergedStreamOptions;
  readonly #logger: Logger;
  readonly #queue = new AsyncQueue<MergedEvent | LiveSignal>();
  readonly #live: SharedStream<ApiEvent>;
  readonly #leaveLive: () => void;
  /** The last durable seq queued: where the durable stream resumes. */
  #after: number;
  /** The open durable stream's own abort, while it is open. */
  #durable: AbortController | undefined;
  #linger: NodeJS.Timeout | undefined;
  /** A turn runs (the backend says so): the durable stream stays open. */
  #busy = false;

  constructor(client: OpencodeClient, options: MergedStreamOptions) {
    this.#client = client;
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#after = options.after;
    this.#live = sharedLiveStream(client, {
      directory: options.directory,
      idleTimeoutMs: options.idleTimeoutMs,
      logger: this.#logger,
    });
    this.#leaveLive = this.#live.join(options.sessionId, {
      event: (parsed) => {
        // The durable events the live stream also carries come on the durable stream, in
        // order and resumable; here they only say it is needed.
        if (LIVE_ONLY_TYPES.has(parsed.event.type)) this.#queue.push({ source: "live", parsed });
        else this.wake();
      },
      connected: () => this.#queue.push({ live: "connected" }),
      heard: (parsed) =>
        this.#queue.push({ live: "heard", heardId: serveNativeOf(parsed.event).id }),
      connection: (change) => options.onConnection?.("live", change),
      ended: (error) =>
        this.#logger.warn("the live stream ended with an error", {
          error: error instanceof Error ? error.message : String(error),
        }),
    });
    options.signal.addEventListener("abort", () => this.#close(), { once: true });
    this.wake();
  }

  /** The merged events until the signal aborts (then `AbortError`); one reader. */
  async *events(): AsyncIterable<MergedEvent> {
    for await (const item of this.#queue.read(this.#options.signal, "the session's streams")) {
      if ("parsed" in item) {
        yield item;
        continue;
      }
      if (item.live === "connected") this.#options.onLiveConnected?.();
      else this.#options.onLiveHeard?.(item.heardId);
    }
  }

  /**
   * The durable stream is needed now: opened (from the last seq read) if closed. While the
   * session is idle it stays open for the linger from now (news tends to come in a burst).
   */
  wake(): void {
    if (this.#options.signal.aborted) return;
    if (this.#durable === undefined) {
      const abort = new AbortController();
      this.#durable = abort;
      void this.#readDurable(abort);
    }
    if (!this.#busy) this.#armLinger();
  }

  /**
   * The server was restarted: an open durable stream connects again now, from the last seq
   * read (a connection made while the server was starting may never be answered).
   */
  reconnectDurable(): void {
    if (this.#durable === undefined || this.#options.signal.aborted) return;
    this.#closeDurable();
    this.wake();
  }

  /** The live stream, if it is down, tries again now (`SharedStream.retryNow`). */
  retryLive(): void {
    this.#live.retryNow();
  }

  /**
   * Whether a turn runs: while one does, the durable stream stays open; once none does, it
   * closes after the linger, unless woken meanwhile.
   */
  busy(busy: boolean): void {
    if (busy === this.#busy) return;
    this.#busy = busy;
    if (busy) {
      clearTimeout(this.#linger);
      this.#linger = undefined;
    } else {
      this.#armLinger();
    }
  }

  #armLinger(): void {
    clearTimeout(this.#linger);
    this.#linger = undefined;
    if (this.#durable === undefined) return;
    this.#linger = setTimeout(() => {
      this.#linger = undefined;
      this.#closeDurable();
    }, this.#options.lingerMs ?? DURABLE_LINGER_MS);
    this.#linger.unref();
  }

  async #readDurable(abort: AbortController): Promise<void> {
    const { directory, idleTimeoutMs, onConnection } = this.#options;
    try {
      const events = this.#client.v2.session.events(
        { sessionID: this.#options.sessionId, after: this.#after },
        {
          signal: abort.signal,
          // The session must not go deaf because its server was away for a while.
          maxConsecutiveFailures: Number.POSITIVE_INFINITY,
          onConnection: (change) => {
            if (!abort.signal.aborted) onConnection?.("durable", change);
          },
          ...(directory === undefined ? {} : { directory }),
          ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
        },
      );
      for await (const parsed of events) {
        if (abort.signal.aborted) return;
        const seq = apiEventDurableSeq(parsed.event);
        if (seq !== undefined) {
          if (seq <= this.#after) continue; // read before the stream was last closed
          this.#after = seq;
        }
        this.#queue.push({ source: "durable", parsed });
      }
    } catch (error) {
      if (abort.signal.aborted || error instanceof AbortError) return;
      // Refused for good (a 4xx): the next wake tries again.
      this.#logger.warn("the session's durable stream ended with an error", {
        sessionId: this.#options.sessionId,
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      // Ended on its own (refused): forgotten, so that the next wake opens it again.
      if (this.#durable === abort) this.#closeDurable();
    }
  }

  /** Closes the durable stream now: a wake from here on opens a new one. */
  #closeDurable(): void {
    const durable = this.#durable;
    if (durable === undefined) return;
    this.#durable = undefined;
    durable.abort();
    this.#options.onConnection?.("durable", "closed");
  }

  #close(): void {
    clearTimeout(this.#linger);
    this.#closeDurable();
    this.#leaveLive();
  }
}
