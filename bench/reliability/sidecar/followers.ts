/**
 * Clients that follow sessions through a sidecar and get cut: a WebSocket client (any number
 * of sessions on one socket) and an SSE client (one session per response). Each keeps a
 * `SessionCopy` per session and, on every (re)connection, resumes each from its last seq, as
 * docs/sidecar-streams.md tells a client to. `cut()` drops the connection abruptly.
 */
import { createRequire } from "node:module";
import type { WsSocket } from "../../../test/support/raw-ws.js";
import { sseFrames } from "../../../test/support/sse-frames.js";
import { SessionCopy } from "./session-copy.js";

const ws = createRequire(import.meta.url)("ws") as {
  WebSocket: new (url: string, options?: { headers?: Record<string, string> }) => WsSocket;
};

/** Bound on a connection attempt: one that takes longer is counted and tried again. */
const CONNECT_BOUND_MS = 15_000;

export interface FollowerTarget {
  url: string;
  auth: { authorization: string };
  /**
   * Connect as a browser does: a ticket from `POST /v1/tickets` in the URL, no header (a
   * browser cannot set one on a WebSocket handshake, nor on an EventSource).
   */
  ticketed?: boolean;
}

/** The handshake's query and headers: a fresh ticket, or the token in a header. */
async function credentials(
  target: FollowerTarget,
  signal: AbortSignal,
): Promise<{ query: string; headers: Record<string, string> }> {
  if (target.ticketed !== true) return { query: "", headers: target.auth };
  const response = await fetch(`${target.url}/v1/tickets`, {
    method: "POST",
    headers: target.auth,
    signal,
  });
  const { ticket } = (await response.json()) as { ticket: string };
  return { query: `ticket=${encodeURIComponent(ticket)}`, headers: {} };
}

/** What a follower saw go wrong: refused connections, error messages, streams ended by the sidecar. */
export interface FollowerTrouble {
  /** `error` messages (WebSocket) or `end` events (SSE), by code. */
  errors: Map<string, number>;
  failedConnects: number;
}

export interface Follower {
  readonly transport: "ws" | "sse";
  /** Connects with tickets (as a browser), not the token. */
  readonly ticketed: boolean;
  readonly copies: ReadonlyMap<string, SessionCopy>;
  readonly connected: boolean;
  readonly trouble: FollowerTrouble;
  connect(): Promise<void>;
  /** Drops the connection without a goodbye (a network cut). */
  cut(): void;
  /** Follows one more session, from its start. */
  follow(sessionId: string): void;
}

function newTrouble(): FollowerTrouble {
  return { errors: new Map(), failedConnects: 0 };
}

function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

export class WsFollower implements Follower {
  readonly transport = "ws";
  readonly copies = new Map<string, SessionCopy>();
  readonly ticketed: boolean;
  readonly trouble = newTrouble();
  readonly #target: FollowerTarget;
  #socket: WsSocket | undefined;
  #open = false;

  constructor(target: FollowerTarget, sessionIds: readonly string[]) {
    this.#target = target;
    this.ticketed = target.ticketed === true;
    for (const id of sessionIds) this.copies.set(id, new SessionCopy());
  }

  get connected(): boolean {
    return this.#open;
  }

  async connect(): Promise<void> {
    let access: { query: string; headers: Record<string, string> };
    try {
      access = await credentials(this.#target, AbortSignal.timeout(CONNECT_BOUND_MS));
    } catch {
      this.trouble.failedConnects++;
      return;
    }
    const base = `${this.#target.url.replace(/^http/, "ws")}/v1/ws`;
    const socket = new ws.WebSocket(access.query === "" ? base : `${base}?${access.query}`, {
      headers: access.headers,
    });
    this.#socket = socket;
    return new Promise((resolve) => {
      const bound = setTimeout(() => {
        this.trouble.failedConnects++;
        socket.terminate();
        resolve();
      }, CONNECT_BOUND_MS);
      socket.on("open", () => {
        clearTimeout(bound);
        this.#open = true;
        for (const [sessionId, copy] of this.copies) this.#subscribe(sessionId, copy.lastSeq);
        resolve();
      });
      socket.on("message", (data) => this.#onMessage(data));
      socket.on("error", () => {});
      socket.on("close", () => {
        clearTimeout(bound);
        if (this.#socket === socket) this.#open = false;
        resolve();
      });
    });
  }

  cut(): void {
    this.#open = false;
    this.#socket?.terminate();
  }

  follow(sessionId: string): void {
    if (this.copies.has(sessionId)) return;
    this.copies.set(sessionId, new SessionCopy());
    if (this.#open) this.#subscribe(sessionId, 0);
  }

  #subscribe(sessionId: string, after: number): void {
    this.#socket?.send(JSON.stringify({ type: "subscribe", sessionId, after }));
  }

  #onMessage(data: Buffer): void {
    const message = JSON.parse(data.toString("utf8")) as {
      type: string;
      sessionId?: string;
      event?: unknown;
      error?: { code?: string };
    };
    if (message.type === "event" && message.sessionId !== undefined) {
      this.copies.get(message.sessionId)?.take(message.event);
    } else if (message.type === "error") {
      count(this.trouble.errors, message.error?.code ?? "(no code)");
    }
  }
}

export class SseFollower implements Follower {
  readonly transport = "sse";
  readonly copies: Map<string, SessionCopy>;
  readonly ticketed: boolean;
  readonly trouble = newTrouble();
  readonly #target: FollowerTarget;
  readonly #sessionId: string;
  readonly #copy = new SessionCopy();
  /** Alternates the two ways to resume: the `Last-Event-ID` header and `?after=`. */
  #byHeader = false;
  #abort: AbortController | undefined;
  #open = false;

  constructor(target: FollowerTarget, sessionId: string) {
    this.#target = target;
    this.ticketed = target.ticketed === true;
    this.#sessionId = sessionId;
    this.copies = new Map([[sessionId, this.#copy]]);
  }

  get connected(): boolean {
    return this.#open;
  }

  async connect(): Promise<void> {
    const abort = new AbortController();
    this.#abort = abort;
    const after = this.#copy.lastSeq;
    this.#byHeader = !this.#byHeader;
    const bound = setTimeout(() => abort.abort(new Error("connect bound")), CONNECT_BOUND_MS);
    try {
      const access = await credentials(this.#target, abort.signal);
      const query = [access.query, this.#byHeader ? "" : `after=${after}`].filter(Boolean);
      const headers = {
        ...access.headers,
        ...(this.#byHeader && after > 0 ? { "last-event-id": String(after) } : {}),
      };
      const path = `/v1/sessions/${this.#sessionId}/events`;
      const response = await fetch(
        `${this.#target.url}${path}${query.length === 0 ? "" : `?${query.join("&")}`}`,
        { headers, signal: abort.signal },
      );
      clearTimeout(bound);
      if (response.status !== 200) {
        count(this.trouble.errors, `HTTP ${response.status}`);
        await response.body?.cancel();
        return;
      }
      this.#open = true;
      void this.#read(response, abort);
    } catch {
      clearTimeout(bound);
      // A cut while connecting is the scenario's doing; anything else is a failed connect.
      if (this.#abort === abort) this.trouble.failedConnects++;
    }
  }

  async #read(response: Response, abort: AbortController): Promise<void> {
    try {
      for await (const frame of sseFrames(response)) {
        if (frame.kind !== "event") continue;
        if (frame.event === undefined) this.#copy.take(JSON.parse(frame.data));
        else if (frame.event === "end" || frame.event === "slow-consumer") {
          const { code } = JSON.parse(frame.data) as { code?: string };
          count(this.trouble.errors, code ?? frame.event);
        }
      }
    } catch {
      // cut: the abort ends the body's iteration
    } finally {
      if (this.#abort === abort) this.#open = false;
    }
  }

  cut(): void {
    this.#open = false;
    const abort = this.#abort;
    this.#abort = undefined;
    abort?.abort();
  }

  follow(): void {
    // One session per SSE response.
  }
}
