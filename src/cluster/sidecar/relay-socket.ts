/**
 * One WebSocket from this sidecar to another sidecar's `/v1/ws`, marked as a cluster relay
 * (`RELAY_HEADER`) and authenticated with the cluster's secret (`ClusterTrust`; over https,
 * the driver's certificate verified against the cluster's CA when one is given): multiplexed over the sessions that sidecar drives, one subscription
 * each, of which only the ephemeral events (deltas) are taken. The driver answers a relay
 * subscription only from a session it drives itself (docs/deployment.md, "Deltas across
 * sidecars"), so a relay never opens, adopts or relays further.
 *
 * Everything that can go wrong ends a subscription (the caller looks the driver up again and
 * subscribes anew): the handshake refused or not answered in time, the socket closed, the
 * driver's `error` for the session, no pong for too long. Nothing is thrown at the socket's
 * callers after `open` resolved.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { RELAY_HEADER } from "../../sidecar/peer-routes.js";
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import { WS_OPEN, type WsClient, WsClientSocket } from "../../util/ws-client.js";
import { ServerMessageSchema } from "../../wire/ws.js";
import type { ClusterTrust } from "./cluster-trust.js";

/** Bound on the handshake (a driver that accepts the TCP connection and says nothing). */
const HANDSHAKE_MS = 5_000;
/** A ping this often; a socket silent (no pong, no message) for `SILENT_MS` is cut. */
const PING_EVERY_MS = 5_000;
const SILENT_MS = 15_000;

/** What one relayed session receives. */
export interface RelayedSession {
  /** An ephemeral event of the session, as the driver handed it out. */
  delta(event: CanonicalEvent): void;
  /** The subscription is live: deltas come from now on (any before are lost). */
  live(): void;
  /** The driver skipped deltas for this socket (it fell behind): some are lost. */
  lost(): void;
  /** The subscription ended (`why` for the log); told once, last. */
  ended(why: string): void;
}

export class RelaySocket {
  readonly address: string;
  readonly #socket: WsClient;
  readonly #logger: Logger;
  readonly #sessions = new Map<string, RelayedSession>();
  readonly #opened: Promise<void>;
  readonly #heartbeat: NodeJS.Timeout;
  #lastHeard = Date.now();
  #closed = false;
  /** Relayed sessions using the socket (subscribed or waiting for it to open). */
  #users = 0;
  readonly #onClosed: () => void;

  /**
   * Opens a socket to `address` (an `http(s)://` origin `trust` accepted); `opened` says when
   * it is up.
   */
  constructor(
    address: string,
    trust: Pick<ClusterTrust, "secret" | "ca">,
    logger: Logger,
    onClosed: () => void,
  ) {
    this.address = address;
    this.#logger = logger;
    this.#onClosed = onClosed;
    const url = `${address.replace(/^http/, "ws").replace(/\/$/, "")}/v1/ws`;
    this.#socket = new WsClientSocket(url, {
      headers: { authorization: `Bearer ${trust.secret}`, [RELAY_HEADER]: "1" },
      handshakeTimeout: HANDSHAKE_MS,
      maxPayload: 64 * 1024 * 1024,
      ...(trust.ca === undefined ? {} : { ca: trust.ca }),
    });
    this.#opened = new Promise<void>((resolve, reject) => {
      this.#socket.on("open", () => resolve());
      this.#socket.on("unexpected-response", (request, response) => {
        request.destroy();
        reject(new Error(`${url} refused the relay's handshake: HTTP ${response.statusCode}`));
        this.#close("its handshake was refused");
      });
      this.#socket.on("error", (error) => {
        reject(error);
        this.#close(describeError(error));
      });
      this.#socket.on("close", (code) => {
        reject(new Error(`${url} closed the relay's socket (${code})`));
        this.#close(`the socket closed (${code})`);
      });
    });
    this.#opened.catch(() => {}); // told through `opened()` and the sessions' `ended`
    this.#socket.on("message", (data, isBinary) => {
      this.#lastHeard = Date.now();
      if (!isBinary) this.#onMessage(data.toString("utf8"));
    });
    this.#socket.on("pong", () => {
      this.#lastHeard = Date.now();
    });
    this.#heartbeat = setInterval(() => this.#beat(), PING_EVERY_MS);
    this.#heartbeat.unref();
  }

  /** Resolves once the socket is open; rejects when it never will be (bounded, abortable). */
  async opened(signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason;
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        this.#opened,
        new Promise<never>((_, reject) => {
          onAbort = () => reject(signal.reason);
          signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
    } finally {
      if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A relayed session starts using the socket (it stays open while any does). */
  acquire(): void {
    this.#users += 1;
  }

  /** A relayed session is done with the socket: closed after the last one. */
  release(): void {
    this.#users -= 1;
    if (this.#users <= 0) this.#close("its last session is no longer relayed");
  }

  /** Subscribes `sessionId`; `session` is told its deltas until it ends or `unsubscribe`. */
  subscribe(sessionId: string, session: RelayedSession): void {
    if (this.#closed) {
      session.ended("the relay socket is closed");
      return;
    }
    this.#sessions.get(sessionId)?.ended("subscribed again");
    this.#sessions.set(sessionId, session);
    // `after` 0: the driver's relay feed has no durable events, nothing is replayed.
    this.#send({ type: "subscribe", sessionId, after: 0 });
  }

  /** Stops relaying `sessionId` (nothing more is told to its `RelayedSession`). */
  unsubscribe(sessionId: string, session: RelayedSession): void {
    if (this.#sessions.get(sessionId) !== session) return;
    this.#sessions.delete(sessionId);
    this.#send({ type: "unsubscribe", sessionId });
  }

  /** Closes the socket; every session still relayed is told it ended. */
  close(why = "the relay socket was closed"): void {
    this.#close(why);
  }

  #onMessage(text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#logger.debug("a relay socket received a message that is not JSON", {
        address: this.address,
      });
      return;
    }
    const parsed = ServerMessageSchema.safeParse(json);
    if (!parsed.success) return; // a newer driver's message: not ours to read
    const message = parsed.data;
    if (message.type === "pong") return;
    const sessionId = message.sessionId;
    const session = sessionId === undefined ? undefined : this.#sessions.get(sessionId);
    if (session === undefined || sessionId === undefined) return;
    if (message.type === "event") {
      // The driver's relay feed carries only ephemeral events; a durable one is the feed's.
      if (!message.event.durable) session.delta(message.event);
    } else if (message.type === "caught-up") {
      session.live();
    } else if (message.type === "dropped") {
      session.lost();
    } else {
      this.#sessions.delete(sessionId);
      session.ended(`${message.error.code}: ${message.error.message}`);
    }
  }

  #beat(): void {
    if (Date.now() - this.#lastHeard > SILENT_MS) {
      this.#close(`the driver said nothing for ${SILENT_MS} ms`);
      return;
    }
    if (this.#socket.readyState === WS_OPEN) this.#socket.ping();
  }

  #send(message: unknown): void {
    if (this.#socket.readyState === WS_OPEN) this.#socket.send(JSON.stringify(message));
  }

  #close(why: string): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    // The handshake may still be under way: terminate, which never throws, ends it too.
    if (this.#socket.readyState === WS_OPEN) this.#socket.close(1000, "relay closed");
    else this.#socket.terminate();
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    for (const session of sessions) session.ended(why);
    this.#onClosed();
  }
}
