/**
 * Bounds the connections one client address holds open at once (HTTP keep-alive sockets and
 * WebSockets alike: both are TCP connections of the server). Without a bound one client can
 * take every file descriptor of the sidecar. A connection past the bound is marked when it
 * opens; its first request is answered 429 `too_many_connections` and the connection closed
 * (on a WebSocket handshake too, before the upgrade). Closing any connection frees its slot.
 * Behind a reverse proxy every client is the proxy's address: raise the bound there.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";

export class ConnectionsPerClient {
  readonly #max: number;
  readonly #open = new Map<string, number>();
  readonly #over = new WeakSet<Socket>();

  constructor(max: number) {
    this.#max = max;
  }

  /** Counts every connection `server` accepts, until it closes. */
  watch(server: Server): void {
    server.on("connection", (socket: Socket) => this.#opened(socket));
  }

  /** Whether `socket` opened while its address already held the most connections allowed. */
  isOver(socket: Socket): boolean {
    return this.#over.has(socket);
  }

  /** Connections open from `address` (a socket's `remoteAddress`). */
  openFrom(address: string): number {
    return this.#open.get(address) ?? 0;
  }

  #opened(socket: Socket): void {
    // Read now: a socket that has closed no longer says where it came from.
    const address = socket.remoteAddress ?? "unknown";
    const count = this.openFrom(address) + 1;
    this.#open.set(address, count);
    if (count > this.#max) this.#over.add(socket);
    socket.once("close", () => {
      const left = this.openFrom(address) - 1;
      if (left > 0) this.#open.set(address, left);
      else this.#open.delete(address);
    });
  }
}
