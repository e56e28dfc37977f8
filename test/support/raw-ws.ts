/**
 * A raw WebSocket client for tests of the sidecar's `/v1/ws` (the `ws` package, as any Node
 * client would use it; not the typed client): messages queued as they come, bounded waits,
 * and `pause()` to stop reading, as a slow consumer does. Also `ws`'s server, for unit tests.
 *
 * `ws` ships no types of its own, so the few members the tests use are typed
 * below.
 */
import { createRequire } from "node:module";

interface WsEvents {
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): unknown;
  on(event: "close", listener: (code: number, reason: Buffer) => void): unknown;
  on(event: "open" | "pong", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(
    event: "unexpected-response",
    listener: (request: { destroy(): void }, response: { statusCode?: number }) => void,
  ): unknown;
}

/** The client and server-side socket of `ws`, as far as the tests use them. */
export interface WsSocket extends WsEvents {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string | Buffer, options?: { binary?: boolean }): void;
  ping(): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  pause(): void;
  resume(): void;
}

export interface WsServer {
  on(event: "connection", listener: (socket: WsSocket) => void): unknown;
  on(event: "listening", listener: () => void): unknown;
  address(): { port: number } | string;
  close(callback?: () => void): void;
  readonly clients: Set<WsSocket>;
}

interface WsModule {
  WebSocket: new (
    url: string,
    options?: { headers?: Record<string, string>; maxPayload?: number; autoPong?: boolean },
  ) => WsSocket;
  WebSocketServer: new (options: { port: number; host: string; maxPayload?: number }) => WsServer;
}

const ws = createRequire(import.meta.url)("ws") as WsModule;
export const { WebSocketServer } = ws;

/** Bound on each wait: a safety net that names what was awaited, never a speed check. */
const WAIT_MS = 30_000;

export interface Closed {
  code: number;
  reason: string;
}

/** One client connection, its incoming JSON messages queued in order. */
export class RawWsClient {
  readonly socket: WsSocket;
  /** Every message received, in order (JSON-parsed). */
  readonly received: unknown[] = [];
  readonly closed: Promise<Closed>;
  #waiters: (() => void)[] = [];

  private constructor(socket: WsSocket) {
    this.socket = socket;
    socket.on("message", (data) => {
      this.received.push(JSON.parse(data.toString("utf8")));
      this.#wake();
    });
    this.closed = new Promise((resolve) => {
      socket.on("close", (code, reason) => {
        resolve({ code, reason: reason.toString("utf8") });
        this.#wake();
      });
    });
    socket.on("error", () => {}); // a cut connection closes; the test reads `closed`
  }

  /** Connects to `url` (ws://…); rejects with the HTTP status when the upgrade is refused. */
  static connect(
    url: string,
    options: { headers?: Record<string, string>; autoPong?: boolean } = {},
  ): Promise<RawWsClient> {
    const socket = new ws.WebSocket(url, options);
    return new Promise((resolve, reject) => {
      socket.on("open", () => resolve(new RawWsClient(socket)));
      socket.on("unexpected-response", (request, response) => {
        // With this listener, ws leaves the refused connection open: a client closes it.
        request.destroy();
        reject(new Error(`upgrade refused: HTTP ${response.statusCode}`));
      });
      socket.on("error", reject);
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /**
   * Waits until a received message satisfies `match` (looking from `from` on); returns its
   * index. Rejects when the socket closes first, or after the bound.
   */
  async waitFor(what: string, match: (message: unknown) => boolean, from = 0): Promise<number> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const index = this.received.findIndex((message, at) => at >= from && match(message));
      if (index >= 0) return index;
      if (this.socket.readyState >= 2) throw new Error(`socket closed while waiting for ${what}`);
      if (Date.now() > deadline) throw new Error(`waited ${WAIT_MS} ms for ${what}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200).unref();
      });
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  close(): void {
    this.socket.close(1000, "done");
  }
}

/** Whether `message` is an object whose fields include `fields`. */
export function messageWith(fields: Record<string, unknown>): (message: unknown) => boolean {
  return (message) =>
    typeof message === "object" &&
    message !== null &&
    Object.entries(fields).every(
      ([key, value]) => (message as Record<string, unknown>)[key] === value,
    );
}
