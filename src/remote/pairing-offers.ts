/**
 * The pairings this sidecar offers: each a random id (public, in the link) and a one-time
 * secret (the psk of the pairing handshake), good for ten minutes and for one device. Kept in
 * memory only: a restart ends every offer, which is what an offer shown on a screen should do.
 * A wrong secret burns the offer after a few tries, so the link cannot be guessed online.
 */
import { randomBytes } from "@noble/hashes/utils.js";
import { toBase64url } from "../util/base64url.js";

export const PAIRING_TTL_MS = 10 * 60_000;
const MAX_FAILURES = 3;
/** Offers outstanding at once: each is a screenful someone asked for, not a queue. */
const MAX_OFFERS = 16;

export interface Offer {
  readonly pairingId: string;
  readonly secret: Uint8Array;
  readonly expiresAt: number;
}

export class PairingOffers {
  readonly #offers = new Map<string, Offer & { failures: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  create(ttlMs = PAIRING_TTL_MS): Offer {
    this.#dropExpired();
    if (this.#offers.size >= MAX_OFFERS) {
      // The oldest goes: a new screen replaces a forgotten one.
      const oldest = this.#offers.keys().next().value;
      if (oldest !== undefined) this.#offers.delete(oldest);
    }
    const offer = {
      pairingId: toBase64url(randomBytes(16)),
      secret: randomBytes(32),
      expiresAt: this.#now() + ttlMs,
      failures: 0,
    };
    this.#offers.set(offer.pairingId, offer);
    return offer;
  }

  /** The offer's secret while it is good; undefined when unknown, expired or spent. */
  secretOf(pairingId: string): Uint8Array | undefined {
    this.#dropExpired();
    return this.#offers.get(pairingId)?.secret;
  }

  /** A handshake with a wrong secret: after a few the offer is gone. */
  failed(pairingId: string): void {
    const offer = this.#offers.get(pairingId);
    if (offer === undefined) return;
    offer.failures++;
    if (offer.failures >= MAX_FAILURES) this.#offers.delete(pairingId);
  }

  /** The offer was used by a device that completed the handshake: it is good no more. */
  spend(pairingId: string): boolean {
    return this.#offers.delete(pairingId);
  }

  #dropExpired(): void {
    const now = this.#now();
    for (const [id, offer] of this.#offers) if (offer.expiresAt <= now) this.#offers.delete(id);
  }
}
