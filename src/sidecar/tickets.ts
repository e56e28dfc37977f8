/**
 * Short-lived, single-use tickets for the WebSocket and SSE handshakes of a browser, which
 * cannot set an `Authorization` header on them: `POST /v1/tickets` (with the token) gives one,
 * the handshake passes it as `?ticket=`. Kept in memory, bounded.
 */
import { randomBytes } from "node:crypto";
import { ExpiringMap } from "./expiring-map.js";

export class Tickets {
  readonly #live: ExpiringMap<true>;

  constructor(options: { ttlMs: number; max: number; now?: () => number }) {
    this.#live = new ExpiringMap(options);
  }

  /** A new ticket, valid once within the ttl (the oldest are dropped past the bound). */
  issue(): { ticket: string; expiresAt: number } {
    const ticket = `tkt_${randomBytes(24).toString("base64url")}`;
    return { ticket, expiresAt: this.#live.set(ticket, true) };
  }

  /** True once for a ticket issued and not expired; the ticket is gone afterwards. */
  consume(ticket: string): boolean {
    const valid = this.#live.get(ticket) === true;
    this.#live.delete(ticket);
    return valid;
  }

  get size(): number {
    return this.#live.size;
  }
}
