/**
 * One client's WebSocket (`GET /v1/ws`): its messages in (subscribe, unsubscribe, ping),
 * any number of session subscriptions out, heartbeats both ways, and the ways it closes.
 *
 * Nothing a client sends can crash the sidecar: every message is validated once here, and a
 * bad one is answered with an `error` message. A socket that keeps sending bad messages, or
 * one too large, is closed with a code that says so (1008, 1009).
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { assertNever } from "../../util/assert-never.js";
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import { ClientMessageSchema, type ServerMessage, WS_CLOSE } from "../../wire/ws.js";
import { eventMessageJson } from "./event-json.js";
import {
  type FeedEnd,
  type FeedMembership,
  FeedRequestError,
  type FeedSource,
} from "./feed-types.js";
import { InvalidMessages } from "./invalid-messages.js";
import { OutboundStream } from "./outbound-stream.js";
import type { SessionFeeds } from "./session-feeds.js";
import { slowConsumerReason } from "./slow-consumer.js";
import { endMessage } from "./stream-ends.js";
import type { StreamLimits } from "./stream-limits.js";
import type { StreamMetrics } from "./stream-metrics.js";

/** What the connection needs of a `ws` WebSocket (the server side of one). */
export interface StreamSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  ping(): void;
  close(code: number, reason: string): void;
  terminate(): void;
  on(
    event: "message",
    listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void,
  ): unknown;
  on(event: "pong", listener: () => void): unknown;
  /** `code`: the close frame's code (1005 without one, 1006 when the connection dropped). */
  on(event: "close", listener: (code: number) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

const OPEN = 1;
/**
 * How long a closed socket's client has to answer the close frame before the socket is
 * destroyed, when the sidecar stops: one that never reads would otherwise hold the stop for
 * ws's own 30 s. (A slow consumer's close waits a heartbeat timeout: it may still be reading
 * its backlog, at the end of which it learns where to resume.)
 */
const CLOSE_GRACE_MS = 5_000;
/** A WebSocket close reason is at most 123 bytes. */
const MAX_REASON = 123;

export interface WsConnectionDeps {
  feeds: SessionFeeds;
  /** The open session with this id (opened or adopted on demand); throws when there is none. */
  openSource: (sessionId: string, signal: AbortSignal) => Promise<FeedSource>;
  limits: StreamLimits;
  metrics: StreamMetrics;
  logger: Logger;
  /** Told once when the socket has closed. */
  onClose?: () => void;
}

/** A subscription: opening its session, then joined to its feed. */
interface Subscription {
  readonly opening: AbortController;
  membership?: FeedMembership;
  outbound?: OutboundStream;
}

export class WsConnection {
  readonly #socket: StreamSocket;
  readonly #deps: WsConnectionDeps;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #invalid: InvalidMessages;
  readonly #heartbeat: NodeJS.Timeout;
  #lastHeard = Date.now();
  #lastBeat = Date.now();
  /** close() was called: messages that still arrive are ignored. */
  #closing = false;
  #closed = false;

  constructor(socket: StreamSocket, deps: WsConnectionDeps) {
    this.#socket = socket;
    this.#deps = deps;
    this.#invalid = new InvalidMessages(
      deps.limits.maxInvalidMessages,
      deps.limits.invalidWindowMs,
    );
    deps.metrics.clientConnected("ws");
    socket.on("message", (data, isBinary) => this.#onMessage(data, isBinary));
    socket.on("pong", () => this.#heard());
    socket.on("close", () => this.#onClose());
    socket.on("error", (error) =>
      deps.logger.debug("a stream WebSocket failed", { error: describeError(error) }),
    );
    this.#heartbeat = setInterval(() => this.#beat(), deps.limits.heartbeatMs);
    this.#heartbeat.unref();
  }

  /**
   * Closes the socket (the sidecar stops: 1012), leaving every subscription; destroys it if
   * the client has not answered the close frame within `graceMs`.
   */
  close(code: number, reason: string, graceMs = CLOSE_GRACE_MS): void {
    this.#closing = true;
    this.#leaveAll();
    if (this.#socket.readyState !== OPEN) return;
    this.#socket.close(code, truncate(reason));
    setTimeout(() => {
      if (!this.#closed) this.#socket.terminate();
    }, graceMs).unref();
  }

  #heard(): void {
    this.#lastHeard = Date.now();
  }

  /**
   * Pings, or gives up on a client that has said nothing (no pong either) for too long. A beat
   * that comes late (this process's event loop was held up) does not judge: the client's pongs
   * may be waiting, unread, behind this very timer; the next beat, on time, does.
   */
  #beat(): void {
    const now = Date.now();
    const late = now - this.#lastBeat > 2 * this.#deps.limits.heartbeatMs;
    this.#lastBeat = now;
    if (!late && now - this.#lastHeard > this.#deps.limits.heartbeatTimeoutMs) {
      this.#deps.logger.info("a stream WebSocket missed its heartbeats; terminating it", {
        silentMs: Date.now() - this.#lastHeard,
      });
      this.#leaveAll();
      this.#socket.terminate();
      return;
    }
    if (this.#socket.readyState === OPEN) this.#socket.ping();
  }

  #onMessage(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    this.#heard();
    if (this.#closing || this.#closed) return;
    const bytes = byteLength(data);
    if (bytes > this.#deps.limits.maxMessageBytes) {
      this.close(
        1009,
        `message too big: ${bytes} bytes, at most ${this.#deps.limits.maxMessageBytes}`,
      );
      return;
    }
    if (isBinary) {
      this.#refuse("bad_message", "binary frames are not accepted: send JSON text frames");
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(textOf(data));
    } catch {
      this.#refuse("bad_json", "the message is not JSON: send one JSON object per text frame");
      return;
    }
    const parsed = ClientMessageSchema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join(".") || "message"}: ${issue.message}`)
        .join("; ");
      this.#refuse(
        "invalid_message",
        `not a valid message (${issues}); send {type:"subscribe",sessionId,after?}, ` +
          `{type:"unsubscribe",sessionId} or {type:"ping",id?}`,
      );
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case "subscribe":
        this.#subscribe(message.sessionId, message.after ?? 0);
        return;
      case "unsubscribe":
        this.#unsubscribe(message.sessionId);
        return;
      case "ping":
        this.#send(message.id === undefined ? { type: "pong" } : { type: "pong", id: message.id });
        return;
      default:
        assertNever(message, "client message");
    }
  }

  /** Answers a bad message; too many of them close the socket. */
  #refuse(code: string, message: string, sessionId?: string): void {
    this.#sendError(code, message, sessionId);
    if (this.#invalid.add(Date.now())) {
      this.close(
        1008,
        `too many invalid messages (more than ${this.#deps.limits.maxInvalidMessages} in ` +
          `${this.#deps.limits.invalidWindowMs / 1000} s)`,
      );
    }
  }

  #subscribe(sessionId: string, after: number): void {
    if (this.#subscriptions.has(sessionId)) {
      this.#refuse(
        "already_subscribed",
        `already subscribed to session ${sessionId}; unsubscribe first to subscribe again`,
        sessionId,
      );
      return;
    }
    if (this.#subscriptions.size >= this.#deps.limits.maxSubscriptions) {
      this.#refuse(
        "too_many_subscriptions",
        `a socket holds at most ${this.#deps.limits.maxSubscriptions} subscriptions; ` +
          "unsubscribe from one, or open another socket",
        sessionId,
      );
      return;
    }
    const subscription: Subscription = { opening: new AbortController() };
    this.#subscriptions.set(sessionId, subscription);
    void this.#join(sessionId, after, subscription);
  }

  async #join(sessionId: string, after: number, subscription: Subscription): Promise<void> {
    let source: FeedSource;
    try {
      source = await this.#deps.openSource(sessionId, subscription.opening.signal);
    } catch (error) {
      if (this.#subscriptions.get(sessionId) !== subscription) return; // unsubscribed meanwhile
      this.#subscriptions.delete(sessionId);
      const { code, message } = openFailure(error, sessionId);
      this.#sendError(code, message, sessionId);
      return;
    }
    if (this.#subscriptions.get(sessionId) !== subscription || this.#closing) return;
    const outbound = new OutboundStream({
      output: {
        unsent: () => this.#socket.bufferedAmount,
        event: (event: CanonicalEvent) => this.#sendText(eventMessageJson(sessionId, event)),
        caughtUp: (seq) => this.#send({ type: "caught-up", sessionId, seq }),
        dropped: (count) => this.#send({ type: "dropped", sessionId, count }),
        ended: (end) => this.#ended(sessionId, subscription, end),
        overloaded: (lastSeq) => this.#overloaded(sessionId, lastSeq),
      },
      bounds: this.#deps.limits.backlog,
      metrics: this.#deps.metrics,
      transport: "ws",
      after,
    });
    subscription.outbound = outbound;
    try {
      subscription.membership = this.#deps.feeds.join(source, outbound, after);
    } catch (error) {
      this.#subscriptions.delete(sessionId);
      const code = error instanceof FeedRequestError ? error.code : "internal";
      this.#sendError(code, describeError(error), sessionId);
    }
  }

  #unsubscribe(sessionId: string): void {
    const subscription = this.#subscriptions.get(sessionId);
    if (subscription === undefined) {
      this.#refuse("not_subscribed", `not subscribed to session ${sessionId}`, sessionId);
      return;
    }
    this.#subscriptions.delete(sessionId);
    subscription.opening.abort();
    subscription.membership?.leave();
  }

  #ended(sessionId: string, subscription: Subscription, end: FeedEnd): void {
    if (this.#subscriptions.get(sessionId) === subscription) this.#subscriptions.delete(sessionId);
    const { code, message } = endMessage(sessionId, end);
    this.#sendError(code, message, sessionId);
  }

  /** Past the second bound: every subscription is told where to resume, then the socket closes. */
  #overloaded(sessionId: string, lastSeq: number | undefined): void {
    for (const [id, subscription] of this.#subscriptions) {
      const seq = id === sessionId ? lastSeq : subscription.outbound?.lastSeq;
      this.#sendError("slow_consumer", slowConsumerReason(seq), id);
    }
    this.close(
      WS_CLOSE.slowConsumer,
      slowConsumerReason(lastSeq),
      this.#deps.limits.heartbeatTimeoutMs,
    );
  }

  #sendError(code: string, message: string, sessionId?: string): void {
    this.#send({
      type: "error",
      ...(sessionId === undefined ? {} : { sessionId }),
      error: { code, message },
    });
  }

  #send(message: ServerMessage): void {
    this.#sendText(JSON.stringify(message));
  }

  #sendText(text: string): void {
    if (this.#socket.readyState === OPEN) this.#socket.send(text);
  }

  #leaveAll(): void {
    const subscriptions = [...this.#subscriptions.values()];
    this.#subscriptions.clear();
    for (const subscription of subscriptions) {
      subscription.opening.abort();
      subscription.membership?.leave();
    }
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#leaveAll();
    this.#deps.metrics.clientDisconnected("ws");
    this.#deps.onClose?.();
  }
}

/** Why a subscription's session could not be opened, as a protocol error. */
function openFailure(error: unknown, sessionId: string): { code: string; message: string } {
  if (error instanceof FeedRequestError) return { code: error.code, message: error.message };
  return {
    code: "internal",
    message: `could not open session ${sessionId}: ${describeError(error)}`,
  };
}

function byteLength(data: Buffer | ArrayBuffer | Buffer[]): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data.byteLength;
}

function textOf(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data as ArrayBuffer).toString("utf8");
}

/** Our reasons are ASCII; anything longer than a close frame holds is cut. */
function truncate(reason: string): string {
  return Buffer.byteLength(reason) <= MAX_REASON ? reason : `${reason.slice(0, MAX_REASON - 3)}...`;
}
