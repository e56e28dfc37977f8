/**
 * A small in-process stand-in for the sidecar's stream side, to test the client's
 * subscriptions (reconnect, resume, the subscribe barrier) without OpenCode: `POST /v1/tickets`
 * and `GET /v1/ws` speaking the protocol of docs/sidecar.md over a session log the test
 * appends to. It is the client under test here, not the sidecar; the e2e tests use the real one.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { type ServerSocket, WebSocketServer, type WebSocketServerLike } from "./ws.js";

export interface FakeSidecarOptions {
  token?: string;
  /** Answer every subscribe from seq 0, whatever its `after` (a careless server). */
  ignoreAfter?: boolean;
  /** Answer no ping (a connection that died without a close). */
  silent?: boolean;
}

interface Subscriber {
  socket: ServerSocket;
  sessionId: string;
}

export class FakeSidecar {
  readonly token: string;
  readonly #options: FakeSidecarOptions;
  readonly #http: Server;
  readonly #wss: WebSocketServerLike;
  readonly #logs = new Map<string, CanonicalEvent[]>();
  readonly #subscribers = new Set<Subscriber>();
  /** Every subscribe message received, in order. */
  readonly subscribes: { sessionId: string; after: number | undefined }[] = [];
  /** Unsubscribe messages received. */
  unsubscribes = 0;
  /** Sockets accepted so far. */
  connections = 0;
  /** Tickets handed out so far. */
  tickets = 0;
  /** Set to refuse tickets with this status (e.g. 401). */
  refuseTickets: number | undefined;
  url = "";

  constructor(options: FakeSidecarOptions) {
    this.#options = options;
    this.token = options.token ?? "secret-token";
    this.#http = createServer((request, response) => {
      if (request.method === "POST" && request.url === "/v1/tickets") {
        const refused = this.refuseTickets;
        if (refused !== undefined || request.headers.authorization !== `Bearer ${this.token}`) {
          response.writeHead(refused ?? 401, { "content-type": "application/json" });
          response.end(JSON.stringify({ error: { code: "unauthorized", message: "no token" } }));
          return;
        }
        this.tickets += 1;
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ ticket: `ticket-${this.tickets}`, expiresAt: Date.now() }));
        return;
      }
      response.writeHead(404).end();
    });
    this.#wss = new WebSocketServer({ noServer: true });
    this.#http.on("upgrade", (request: IncomingMessage, socket, head) => {
      const url = new URL(request.url ?? "/", "http://fake");
      if (url.pathname !== "/v1/ws" || !url.searchParams.get("ticket")?.startsWith("ticket-")) {
        socket.destroy();
        return;
      }
      this.#wss.handleUpgrade(request, socket, head, (ws) => this.#accept(ws));
    });
  }

  static async start(options: FakeSidecarOptions = {}): Promise<FakeSidecar> {
    const fake = new FakeSidecar(options);
    await new Promise<void>((resolve) => fake.#http.listen(0, "127.0.0.1", resolve));
    fake.url = `http://127.0.0.1:${(fake.#http.address() as AddressInfo).port}`;
    return fake;
  }

  /**
   * Appends to a session's log and sends to its subscribers (durable events get the next seq);
   * `lost`: kept, but its live message never sent (a sidecar that skipped it).
   */
  append(
    sessionId: string,
    event: Omit<CanonicalEvent, "seq" | "sessionId">,
    options: { lost?: boolean } = {},
  ): CanonicalEvent {
    const log = this.#logs.get(sessionId) ?? [];
    this.#logs.set(sessionId, log);
    const full = {
      ...event,
      sessionId,
      ...(event.durable && { seq: log.filter((e) => e.durable).length + 1 }),
    } as CanonicalEvent;
    if (full.durable) log.push(full);
    if (options.lost) return full;
    for (const subscriber of this.#subscribers) {
      if (subscriber.sessionId === sessionId) this.#send(subscriber.socket, eventMessage(full));
    }
    return full;
  }

  /** Terminates every open socket, as a dropped network would. */
  cut(): number {
    const sockets = [...this.#wss.clients];
    for (const socket of sockets) socket.terminate();
    return sockets.length;
  }

  /** Sends `message` on every open socket. */
  sendAll(message: unknown): void {
    for (const socket of this.#wss.clients) this.#send(socket, message);
  }

  /** Closes every open socket with `code` and `reason`. */
  closeAll(code: number, reason: string): void {
    for (const socket of this.#wss.clients) socket.close(code, reason);
  }

  get openSockets(): number {
    return this.#wss.clients.size;
  }

  async close(): Promise<void> {
    for (const socket of this.#wss.clients) socket.terminate();
    this.#wss.close();
    await new Promise((resolve) => this.#http.close(resolve));
  }

  #accept(socket: ServerSocket): void {
    this.connections += 1;
    socket.on("close", () => {
      for (const subscriber of this.#subscribers) {
        if (subscriber.socket === socket) this.#subscribers.delete(subscriber);
      }
    });
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as {
        type: string;
        sessionId?: string;
        after?: number;
        id?: string;
      };
      if (message.type === "ping") {
        if (!this.#options.silent) this.#send(socket, { type: "pong", id: message.id });
        return;
      }
      const sessionId = message.sessionId ?? "";
      if (message.type === "unsubscribe") {
        this.unsubscribes += 1;
        for (const subscriber of this.#subscribers) {
          if (subscriber.socket === socket && subscriber.sessionId === sessionId) {
            this.#subscribers.delete(subscriber);
          }
        }
        return;
      }
      if (message.type !== "subscribe") return;
      this.subscribes.push({ sessionId, after: message.after });
      if (sessionId.startsWith("missing")) {
        this.#send(socket, {
          type: "error",
          sessionId,
          error: { code: "not_found", message: `no session ${sessionId}` },
        });
        return;
      }
      const after = this.#options.ignoreAfter ? 0 : (message.after ?? 0);
      const log = this.#logs.get(sessionId) ?? [];
      for (const event of log) {
        if ((event.seq ?? 0) > after) this.#send(socket, eventMessage(event));
      }
      this.#send(socket, { type: "caught-up", sessionId, seq: log.length });
      this.#subscribers.add({ socket, sessionId });
    });
  }

  #send(socket: ServerSocket, message: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  }
}

function eventMessage(event: CanonicalEvent) {
  return { type: "event", sessionId: event.sessionId, event };
}

let made = 0;

/** A durable `text.ended` (any durable type would do: the client does not look inside). */
export function durable(text: string): Omit<CanonicalEvent, "seq" | "sessionId"> {
  return {
    id: `evt_${++made}`,
    at: Date.now(),
    type: "text.ended",
    durable: true,
    data: { partId: "prt_1", text },
  } as Omit<CanonicalEvent, "seq" | "sessionId">;
}

/** An ephemeral `text.delta`. */
export function ephemeral(delta: string): Omit<CanonicalEvent, "seq" | "sessionId"> {
  return {
    id: `evt_${++made}`,
    at: Date.now(),
    type: "text.delta",
    durable: false,
    data: { partId: "prt_1", delta },
  } as Omit<CanonicalEvent, "seq" | "sessionId">;
}
