/**
 * Pings every watched socket each interval and terminates one that missed too many pongs: a
 * peer that vanished without a close (a sleeping laptop, a cut NAT mapping) would otherwise
 * hold its slot until TCP gives up, hours later.
 */
import type { WebSocket } from "./relay-ws.js";

export class Liveness {
  readonly #missed = new Map<WebSocket, number>();

  constructor(private readonly maxMissedPongs: number) {}

  watch(socket: WebSocket): void {
    this.#missed.set(socket, 0);
    socket.on("pong", () => {
      if (this.#missed.has(socket)) this.#missed.set(socket, 0);
    });
    socket.once("close", () => this.#missed.delete(socket));
  }

  /** One interval: terminate the silent, ping the rest. */
  tick(): void {
    for (const [socket, missed] of this.#missed) {
      if (missed >= this.maxMissedPongs) {
        this.#missed.delete(socket);
        socket.terminate();
      } else {
        this.#missed.set(socket, missed + 1);
        socket.ping();
      }
    }
  }
}
