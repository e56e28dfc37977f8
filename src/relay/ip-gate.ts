/**
 * Per-address admission: new connections per minute and open connections at once. The counts
 * live in memory only and are forgotten once an address is quiet, so that the relay keeps no
 * history of who connected.
 */
export class IpGate {
  readonly #windows = new Map<string, { startedAt: number; attempts: number }>();
  readonly #open = new Map<string, number>();

  constructor(
    private readonly attemptsPerMinute: number,
    private readonly concurrent: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts an attempt; true when it is admitted (then `release` it once closed). */
  admit(ip: string): boolean {
    const now = this.now();
    let window = this.#windows.get(ip);
    if (window === undefined || now - window.startedAt >= 60_000) {
      window = { startedAt: now, attempts: 0 };
      this.#windows.set(ip, window);
    }
    window.attempts += 1;
    const open = this.#open.get(ip) ?? 0;
    if (window.attempts > this.attemptsPerMinute || open >= this.concurrent) return false;
    this.#open.set(ip, open + 1);
    return true;
  }

  release(ip: string): void {
    const open = (this.#open.get(ip) ?? 1) - 1;
    if (open <= 0) this.#open.delete(ip);
    else this.#open.set(ip, open);
  }

  /** Forgets the windows that have ended (called now and then, so the map stays small). */
  sweep(): void {
    const now = this.now();
    for (const [ip, window] of this.#windows) {
      if (now - window.startedAt >= 60_000) this.#windows.delete(ip);
    }
  }
}
