/**
 * Closes the connections of WebSocket handshakes that were answered with an HTTP error instead
 * of an upgrade (a 401, a 404 for another path). Node hands an upgrade request's socket to the
 * application and forgets it: nobody ends it after the error is written, and a client that
 * keeps it open would hold it forever, and hold the sidecar's stop (the server waits for it).
 * Sockets the WebSocket route takes up are claimed; the others are destroyed once the
 * handshake bound has passed, or at once when the sidecar stops.
 */
import type { Server } from "node:http";
import type { Duplex } from "node:stream";

/** How long a handshake may take before its connection is closed, unless it became a WebSocket. */
const HANDSHAKE_MS = 10_000;

export class UpgradeGuard {
  readonly #unclaimed = new Map<Duplex, NodeJS.Timeout>();

  constructor(server: Server, handshakeMs = HANDSHAKE_MS) {
    server.on("upgrade", (_request, socket: Duplex) => {
      const timer = setTimeout(() => this.#destroy(socket), handshakeMs);
      timer.unref();
      this.#unclaimed.set(socket, timer);
      socket.once("close", () => this.claim(socket));
    });
  }

  /** The socket became a WebSocket (or closed): it is not the guard's any more. */
  claim(socket: Duplex): void {
    clearTimeout(this.#unclaimed.get(socket));
    this.#unclaimed.delete(socket);
  }

  /** Destroys every handshake connection not taken up (the sidecar stops). */
  destroyUnclaimed(): void {
    for (const socket of [...this.#unclaimed.keys()]) this.#destroy(socket);
  }

  #destroy(socket: Duplex): void {
    this.claim(socket);
    socket.destroy();
  }
}
