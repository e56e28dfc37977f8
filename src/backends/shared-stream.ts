/**
 * One native event stream shared by every open session that reads it. OpenCode's live stream
 * is per server location and carries every session's events: a connection per session would
 * receive and parse each event once per open session, only for all but one to drop it (the
 * bridge's cost per event grew with the number of sessions open). Here one connection is
 * read, each event parsed once and handed to the session it names, found by key; what is about
 * the connection itself (it connected, it is reconnecting) goes to every session.
 *
 * The connection opens with the first session to join and closes when the last one leaves.
 */
import { AbortError } from "../errors.js";
import type { Parsed } from "../opencode-protocol/common.js";
import type { StreamConnectionChange } from "../transport/transport.js";
import type { Logger } from "../util/logger.js";

/** What a session that joined is told. */
export interface SharedStreamListener<T> {
  /** An event for this session. */
  event(parsed: Parsed<T>): void;
  /**
   * The stream (re)connected: events sent before it were not heard (also at join, when it is
   * up). `event` is the one that said so (OpenCode's `server.connected`; its id does not tell
   * from when the connection delivers: `heard` does).
   */
  connected(event: Parsed<T>): void;
  /**
   * Once per connection, the event from which on the session hears everything the server's
   * subscription passes on (any session's event): every event made after it comes to the
   * session; one made before it may not have. For the sessions there as the connection opened,
   * the first event it passed on; for one joining an open connection, the newest it passed on
   * before the join (what came before went to nobody). Not the connected event: OpenCode makes
   * that before its subscription delivers, and events made in between (tens of ms, more on a
   * busy server) never come on the connection.
   */
  heard(event: Parsed<T>): void;
  /** How the connection fares (a reconnect that fails, then connects). */
  connection(change: StreamConnectionChange): void;
  /** The stream ended for good (a refusal no retry mends): no event comes any more. */
  ended(error: unknown): void;
}

export interface SharedStreamSource<T> {
  /** Opens the one connection (reconnecting on its own until `signal` aborts). */
  open(options: {
    signal: AbortSignal;
    onConnection: (change: StreamConnectionChange) => void;
  }): AsyncIterable<Parsed<T>>;
  /** Whom an event is for (`undefined`: nobody; it is dropped). */
  keyOf(parsed: Parsed<T>): string | undefined;
  /** Whether the event says the stream (re)connected (sent first on each connection). */
  isConnected(parsed: Parsed<T>): boolean;
  /**
   * Whether the event came through the server's subscription, not made by the stream itself
   * (its connected and heartbeat events, which say nothing of when the subscription delivers),
   * and tells when it was made (it has an id): it can date the connection.
   */
  isSubscribed(parsed: Parsed<T>): boolean;
  logger: Logger;
}

export class SharedStream<T> {
  readonly #source: SharedStreamSource<T>;
  readonly #listeners = new Map<string, Set<SharedStreamListener<T>>>();
  #count = 0;
  #abort: AbortController | undefined;
  /**
   * While the stream is up (no attempt failed since): the event by which it said it connected,
   * and the newest it passed on from the subscription since (see `SharedStreamListener.heard`).
   */
  #up: { connected: Parsed<T>; latest: Parsed<T> | undefined } | undefined;
  /** The last failed attempt while the stream is down, for a session joining meanwhile. */
  #down: StreamConnectionChange | undefined;
  /** `retryNow` started a connection that has not reported yet: it is not started again. */
  #retrying = false;
  /** Called once the connection closed with the last session gone (the owner forgets it). */
  readonly #onIdle: () => void;

  constructor(source: SharedStreamSource<T>, onIdle: () => void = () => {}) {
    this.#source = source;
    this.#onIdle = onIdle;
  }

  /** How many sessions read the stream. */
  get size(): number {
    return this.#count;
  }

  /** Joins `listener` to the events for `key`; the returned function leaves. */
  join(key: string, listener: SharedStreamListener<T>): () => void {
    let set = this.#listeners.get(key);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(key, set);
    }
    set.add(listener);
    this.#count++;
    if (this.#abort === undefined) this.#start();
    else if (this.#up !== undefined) {
      listener.connected(this.#up.connected);
      if (this.#up.latest !== undefined) listener.heard(this.#up.latest);
    } else if (this.#down !== undefined) listener.connection(this.#down);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#leave(key, listener);
    };
  }

  /**
   * Drops the connection (or the attempt under way, or the backoff before the next) and opens
   * it again now: the server behind it was replaced. A restarted `opencode serve` can take a
   * connection while it is still starting and never answer it (until the header bound, 30 s).
   */
  reconnect(): void {
    if (this.#abort === undefined) return;
    this.#abort.abort();
    this.#up = undefined;
    this.#start();
  }

  /**
   * While the stream is down, drops the backoff or the attempt under way and tries again now
   * (a session is about to prompt: the server may be back, and an attempt a starting server
   * took is never answered). Once until that connection reports: many sessions asking at once
   * make one attempt.
   */
  retryNow(): void {
    if (this.#down === undefined || this.#retrying) return;
    this.#retrying = true;
    this.reconnect();
  }

  #leave(key: string, listener: SharedStreamListener<T>): void {
    const set = this.#listeners.get(key);
    if (set?.delete(listener) !== true) return;
    if (set.size === 0) this.#listeners.delete(key);
    this.#count--;
    if (this.#count === 0) {
      this.#abort?.abort();
      this.#abort = undefined;
      this.#up = undefined;
      this.#down = undefined;
      this.#retrying = false;
      this.#onIdle();
    }
  }

  #start(): void {
    const abort = new AbortController();
    this.#abort = abort;
    void this.#pump(abort.signal);
  }

  async #pump(signal: AbortSignal): Promise<void> {
    try {
      const events = this.#source.open({
        signal,
        onConnection: (change) => {
          if (signal.aborted) return;
          this.#retrying = false;
          if (change.state === "reconnecting") {
            this.#up = undefined;
            this.#down = change;
          } else {
            this.#down = undefined;
          }
          for (const listener of this.#all()) listener.connection(change);
        },
      });
      for await (const parsed of events) {
        if (signal.aborted) return;
        if (this.#source.isConnected(parsed)) {
          this.#up = { connected: parsed, latest: undefined };
          for (const listener of this.#all()) listener.connected(parsed);
          continue;
        }
        const up = this.#up;
        if (up !== undefined && this.#source.isSubscribed(parsed)) {
          if (up.latest === undefined) for (const listener of this.#all()) listener.heard(parsed);
          up.latest = parsed;
        }
        const key = this.#source.keyOf(parsed);
        if (key === undefined) continue;
        const set = this.#listeners.get(key);
        if (set === undefined) continue;
        // A copy only when several listen: one may leave while the others are told.
        if (set.size === 1) for (const listener of set) listener.event(parsed);
        else for (const listener of [...set]) listener.event(parsed);
      }
    } catch (error) {
      if (signal.aborted || error instanceof AbortError) return;
      this.#source.logger.warn("a shared event stream ended with an error", {
        error: error instanceof Error ? error.message : String(error),
      });
      this.#endAll(signal, error);
    }
  }

  /** The stream failed for good: every session is told, and a later join starts anew. */
  #endAll(signal: AbortSignal, error: unknown): void {
    if (this.#abort?.signal !== signal) return;
    const listeners = [...this.#all()];
    this.#listeners.clear();
    this.#count = 0;
    this.#abort = undefined;
    this.#up = undefined;
    this.#down = undefined;
    this.#retrying = false;
    this.#onIdle();
    for (const listener of listeners) listener.ended(error);
  }

  *#all(): Iterable<SharedStreamListener<T>> {
    for (const set of [...this.#listeners.values()]) yield* [...set];
  }
}
