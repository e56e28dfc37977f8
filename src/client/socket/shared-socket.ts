/**
 * The client's one WebSocket, shared by all its subscriptions. Opened when the first
 * subscription starts and closed when the last one ends; when it breaks, it reconnects after a
 * capped, jittered backoff (a fresh ticket each time) and subscribes every session again after
 * the last durable seq its subscribers took, so none is lost or repeated. Heartbeats both
 * ways: the sidecar pings with ws ping frames (answered by the WebSocket itself); this side
 * sends `ping` messages and gives the socket up when nothing has come back for a while, which
 * is how a browser learns of a connection that died without a close.
 */

import type { CanonicalEvent } from "../../events/canonical.js";
import { assertNever } from "../../util/assert-never.js";
import { Backoff, type BackoffOptions } from "../../util/backoff.js";
import { anySignalWithTimeout } from "../../util/timeout-signal.js";
import { sleep, unrefTimer } from "../deadline.js";
import { BridgeApiError, BridgeClientError, BridgeProtocolError, statusOfCode } from "../errors.js";
import { type ConnectionObservable, ConnectionStateCell } from "./connection-state.js";
import { EventSubscription } from "./event-subscription.js";
import { type ClientMessage, parseServerMessage } from "./messages.js";
import { type FeedWire, SessionFeed } from "./session-feed.js";
import { sidecarSocketUrl } from "./socket-url.js";
import { OPEN, type WebSocketConstructor, type WebSocketLike } from "./websocket-like.js";

/** Delays between reconnect attempts (the client's default jitter is ±50 %). */
export type ReconnectBackoff = BackoffOptions;

export interface SocketOptions {
  /** Delays between reconnect attempts. */
  backoff?: ReconnectBackoff;
  /** How often the client pings (default 15 000 ms). */
  heartbeatMs?: number;
  /** Silence after which the socket is given up and reconnected (default 35 000 ms). */
  heartbeatTimeoutMs?: number;
  /** Bound on a ticket plus the WebSocket handshake (default 10 000 ms). */
  connectTimeoutMs?: number;
  /** Unread events a subscription keeps before it detaches (default 10 000). */
  bufferLimit?: number;
}

export interface SubscribeOptions {
  /** Start after this durable seq (default 0: every kept event, then live ones). */
  after?: number;
  signal?: AbortSignal;
}

interface SharedSocketDeps {
  baseUrl: URL;
  WebSocket: WebSocketConstructor | undefined;
  /** A single-use ticket for the handshake (`POST /v1/tickets`). */
  ticket(signal: AbortSignal): Promise<string>;
  options: SocketOptions;
}

/** The socket being opened or open, and how to give it up. */
interface Live {
  ws: WebSocketLike;
  open: boolean;
  end(reason: string): void;
}

export class SharedSocket {
  readonly #deps: SharedSocketDeps;
  readonly #state = new ConnectionStateCell();
  readonly #feeds = new Map<string, SessionFeed>();
  readonly #lifetime = new AbortController();
  #live: Live | undefined;
  #running = false;
  /** Aborts the backoff wait when the last subscription ends. */
  #idle = new AbortController();
  #pings = 0;

  constructor(deps: SharedSocketDeps) {
    this.#deps = deps;
  }

  get connection(): ConnectionObservable {
    return this.#state;
  }

  subscribe(sessionId: string, options: SubscribeOptions = {}): EventSubscription {
    if (this.#lifetime.signal.aborted) {
      throw new BridgeClientError("this BridgeClient is closed: create a new one to subscribe");
    }
    if (this.#deps.WebSocket === undefined) {
      throw new BridgeClientError(
        "no WebSocket: this runtime has no global one (Node 20 has none); pass one as the " +
          "`WebSocket` option, e.g. the WebSocket class of the ws package",
      );
    }
    if (typeof sessionId !== "string" || sessionId === "") {
      throw new BridgeClientError("a session id is required (from createSession or listSessions)");
    }
    const after = options.after ?? 0;
    if (!Number.isSafeInteger(after) || after < 0) {
      throw new BridgeClientError(`after must be a whole number >= 0 (a seq), not ${after}`);
    }
    let feed = this.#feeds.get(sessionId);
    if (feed === undefined) {
      feed = new SessionFeed(sessionId);
      this.#feeds.set(sessionId, feed);
    }
    const subscription = new EventSubscription(
      sessionId,
      after,
      { bufferLimit: this.#deps.options.bufferLimit ?? 10_000, signal: options.signal },
      {
        changed: (changed) => this.#feeds.get(changed.sessionId)?.refresh(this.#wire()),
        closed: (closed) => this.#forget(closed),
      },
    );
    feed.subscribers.add(subscription);
    feed.refresh(this.#wire());
    this.#ensureRunning();
    return subscription;
  }

  /** Ends every subscription and closes the socket for good. */
  close(): void {
    if (this.#lifetime.signal.aborted) return;
    this.#lifetime.abort();
    this.#idle.abort();
    this.#live?.end("client closed");
    for (const feed of [...this.#feeds.values()]) {
      for (const subscription of [...feed.subscribers]) subscription.end();
    }
    this.#feeds.clear();
    this.#state.set("closed", 0);
  }

  #forget(subscription: EventSubscription): void {
    const feed = this.#feeds.get(subscription.sessionId);
    if (feed === undefined) return;
    feed.subscribers.delete(subscription);
    feed.refresh(this.#wire());
    if (feed.finished) this.#feeds.delete(subscription.sessionId);
    if (!this.#hasSubscribers()) {
      this.#idle.abort();
      this.#live?.end("no subscription left");
    }
  }

  #hasSubscribers(): boolean {
    for (const feed of this.#feeds.values()) if (feed.subscribers.size > 0) return true;
    return false;
  }

  #ensureRunning(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#run().finally(() => {
      this.#running = false;
      // A subscription that started while the loop was winding down needs it again.
      if (!this.#lifetime.signal.aborted && this.#hasSubscribers()) this.#ensureRunning();
    });
  }

  async #run(): Promise<void> {
    // Wider jitter than the library's: a hundred clients cut by one sidecar restart must not
    // all come back in the same millisecond.
    const backoff = new Backoff({ jitter: 0.5, ...this.#deps.options.backoff });
    let reason: string | undefined;
    while (!this.#lifetime.signal.aborted && this.#hasSubscribers()) {
      // Aborted when the subscriptions ran out during the last wait; some came back since.
      if (this.#idle.signal.aborted) this.#idle = new AbortController();
      this.#state.set(
        backoff.attempt === 0 ? "connecting" : "reconnecting",
        backoff.attempt,
        reason,
      );
      try {
        reason = await this.#connectOnce(backoff);
      } catch (error) {
        if (isFinal(error)) {
          this.#failAll(error);
          break;
        }
        reason = error instanceof Error ? error.message : String(error);
      }
      for (const feed of this.#feeds.values()) feed.socketClosed();
      this.#dropFinishedFeeds();
      if (this.#lifetime.signal.aborted || !this.#hasSubscribers()) break;
      const delay = backoff.next();
      this.#state.set("reconnecting", backoff.attempt, reason);
      await sleep(delay, this.#idle.signal, "the reconnect wait").catch(() => {});
    }
    if (!this.#lifetime.signal.aborted) this.#state.set("idle", 0, reason);
  }

  /** Opens one socket and serves it until it ends; resolves with why it ended. */
  async #connectOnce(backoff: Backoff): Promise<string> {
    const options = this.#deps.options;
    const connectMs = options.connectTimeoutMs ?? 10_000;
    const ticketSignal = anySignalWithTimeout(
      [this.#lifetime.signal, this.#idle.signal],
      connectMs,
    );
    const ticket = await this.#deps.ticket(ticketSignal);
    const Socket = this.#deps.WebSocket as WebSocketConstructor;
    const ws = new Socket(socketUrl(this.#deps.baseUrl, ticket));
    return await new Promise<string>((resolve) => {
      let ended = false;
      let lastHeard = Date.now();
      let heartbeat: ReturnType<typeof setInterval> | undefined;
      const connectTimer = setTimeout(
        () => end(`no WebSocket handshake within ${connectMs} ms`),
        connectMs,
      );
      unrefTimer(connectTimer);
      const live: Live = { ws, open: false, end: (why) => end(why) };
      this.#live = live;
      const end = (why: string): void => {
        if (ended) return;
        ended = true;
        clearTimeout(connectTimer);
        if (heartbeat !== undefined) clearInterval(heartbeat);
        if (this.#live === live) this.#live = undefined;
        try {
          ws.close(1000, why.slice(0, 120));
        } catch {
          // Closing a socket that never opened may throw in some implementations.
        }
        resolve(why);
      };
      ws.addEventListener("open", () => {
        if (ended) return;
        clearTimeout(connectTimer);
        live.open = true;
        this.#state.set("connected", 0);
        lastHeard = Date.now();
        const heartbeatMs = options.heartbeatMs ?? 15_000;
        const silenceMs = options.heartbeatTimeoutMs ?? 35_000;
        heartbeat = setInterval(() => {
          if (Date.now() - lastHeard > silenceMs) end(`nothing heard for ${silenceMs} ms`);
          else this.#send({ type: "ping", id: `heartbeat-${++this.#pings}` });
        }, heartbeatMs);
        unrefTimer(heartbeat);
        const wire = this.#wire();
        for (const feed of this.#feeds.values()) feed.socketOpened(wire as FeedWire);
      });
      ws.addEventListener("message", (event) => {
        if (ended) return;
        lastHeard = Date.now();
        if (this.#handle(event.data)) backoff.reset();
      });
      ws.addEventListener("close", (event) =>
        end(`closed by the sidecar (${event.code}${event.reason ? `: ${event.reason}` : ""})`),
      );
      ws.addEventListener("error", () => end("the WebSocket failed"));
    });
  }

  /** Handles one message; true when it shows the connection works (not an error). */
  #handle(data: unknown): boolean {
    const parsed = parseServerMessage(data);
    if (!parsed.ok) {
      const feed = parsed.sessionId === undefined ? undefined : this.#feeds.get(parsed.sessionId);
      feed?.fail(new BridgeProtocolError(parsed.error));
      return false;
    }
    const message = parsed.message;
    if (message === undefined) return false; // a kind of message this client does not know
    switch (message.type) {
      case "event":
        this.#feeds.get(message.sessionId)?.event(message.event as CanonicalEvent);
        return true;
      case "caught-up":
        this.#feeds.get(message.sessionId)?.caughtUp(message.seq);
        return true;
      case "dropped":
        this.#feeds.get(message.sessionId)?.dropped(message.count);
        return true;
      case "pong": {
        const wire = this.#wire();
        if (wire !== undefined) {
          for (const feed of this.#feeds.values()) if (feed.pong(message.id, wire)) break;
        }
        this.#dropFinishedFeeds();
        return true;
      }
      case "error": {
        // `slow_consumer` comes just before the 4008 close: the reconnect resumes, no failure.
        if (message.sessionId === undefined || message.error.code === "slow_consumer") {
          return false;
        }
        const { code, message: text } = message.error;
        this.#feeds
          .get(message.sessionId)
          ?.fail(new BridgeApiError({ status: statusOfCode(code), code, message: text }));
        this.#dropFinishedFeeds();
        return false;
      }
      default:
        return assertNever(message);
    }
  }

  #dropFinishedFeeds(): void {
    for (const [id, feed] of this.#feeds) if (feed.finished) this.#feeds.delete(id);
  }

  #failAll(error: unknown): void {
    for (const feed of [...this.#feeds.values()]) {
      for (const subscription of [...feed.subscribers]) subscription.fail(error);
    }
    this.#feeds.clear();
  }

  #send(message: ClientMessage): void {
    const ws = this.#live?.open ? this.#live.ws : undefined;
    if (ws === undefined || ws.readyState !== OPEN) return;
    ws.send(JSON.stringify(message));
  }

  /** How feeds speak on the open socket; undefined while there is none. */
  #wire(): FeedWire | undefined {
    if (this.#live?.open !== true) return undefined;
    return {
      subscribe: (sessionId, after) => this.#send({ type: "subscribe", sessionId, after }),
      unsubscribe: (sessionId) => this.#send({ type: "unsubscribe", sessionId }),
      barrier: () => {
        const id = `barrier-${++this.#pings}`;
        this.#send({ type: "ping", id });
        return id;
      },
    };
  }
}

/** Errors no retry can mend: a wrong token, a refused origin or host. */
function isFinal(error: unknown): boolean {
  return error instanceof BridgeApiError && !error.retryable;
}

/** `ws(s)://host/prefix/v1/ws?ticket=…` from the sidecar's http(s) URL. */
function socketUrl(base: URL, ticket: string): string {
  return sidecarSocketUrl(base, "/v1/ws", { ticket });
}
