/**
 * Short-lived, single-use tickets for the WebSocket and SSE handshakes of a browser, which
 * cannot set an `Authorization` header on them: `POST /v1/tickets` (with the token) gives one,
 * the handshake passes it as `?ticket=`. Kept in memory, bounded.
 */
import { randomBytes } from "node:crypto";

export class Tickets {
  /** Ticket → expiry (ms since the epoch), oldest first. */
  readonly #live = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: { ttlMs: number; max: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#max = options.max;
    this.#now = options.now ?? Date.now;
  }

  /** A new ticket, valid once within the ttl. */
  issue(): { ticket: string; expiresAt: number } {
    this.#prune();
    while (this.#live.size >= this.#max) {
      const oldest = this.#live.keys().next().value;
      if (oldest === undefined) break;
      this.#live.delete(oldest);
    }
    const ticket = `tkt_${randomBytes(24).toString("base64url")}`;
    const expiresAt = this.#now() + this.#ttlMs;
    this.#live.set(ticket, expiresAt);
    return { ticket, expiresAt };
  }

  /** True once for a ticket issued and not expired; the ticket is gone afterwards. */
  consume(ticket: string): boolean {
    const expiresAt = this.#live.get(ticket);
    if (expiresAt === undefined) return false;
    this.#live.delete(ticket);
    return expiresAt > this.#now();
  }

  get size(): number {
    return this.#live.size;
  }

  #prune(): void {
    const now = this.#now();
    for (const [ticket, expiresAt] of this.#live) {
      if (expiresAt <= now) this.#live.delete(ticket);
    }
  }
}
