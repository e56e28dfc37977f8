/**
 * Short-lived, single-use tickets for the WebSocket and SSE handshakes of a browser, which
 * cannot set an `Authorization` header on them: `POST /v1/tickets` (with the token) gives one,
 * the handshake passes it as `?ticket=`. Kept in memory, bounded.
 */
import { randomBytes } from "node:crypto";
import type { LRUCache } from "lru-cache";
import { type BoundedTtl, boundedTtlCache } from "./bounded-ttl.js";

export class Tickets {
  readonly #live: LRUCache<string, true>;
  readonly #expiresAt: () => number;

  constructor(options: BoundedTtl) {
    ({ cache: this.#live, expiresAt: this.#expiresAt } = boundedTtlCache<true>(options));
  }

  /** A new ticket, valid once within the ttl (the oldest are dropped past the bound). */
  issue(): { ticket: string; expiresAt: number } {
    const ticket = `tkt_${randomBytes(24).toString("base64url")}`;
    const expiresAt = this.#expiresAt();
    this.#live.set(ticket, true);
    return { ticket, expiresAt };
  }

  /** True once for a ticket issued and not expired; the ticket is gone afterwards. */
  consume(ticket: string): boolean {
    const valid = this.#live.peek(ticket) === true;
    this.#live.delete(ticket);
    return valid;
  }

  get size(): number {
    this.#live.purgeStale();
    return this.#live.size;
  }
}
