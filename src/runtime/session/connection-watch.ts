/**
 * A session's view of its native streams: whether they reach the server (what
 * `Session.connection` shows and `connection.changed` publishes), and the connection-lost
 * bound that replaces the stall watchdog while they do not: silence from a server nobody can
 * hear says nothing about its run.
 */
import type { BackendConnection } from "../../backends/backend.js";
import { UsageError } from "../../errors.js";
import type { ConnectionState } from "../../events/canonical.js";

/** How long a running turn outlives an outage of its streams by default. */
export const DEFAULT_CONNECTION_LOST_AFTER_MS = 180_000;

/** Node runs a longer timer at once: a bound past it can only mean "never". */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class ConnectionWatch {
  #state: ConnectionState = { state: "connected", since: Date.now(), attempt: 0 };
  /** An outage ended since `takeReconnected()` was last asked. */
  #reconnected = false;
  readonly #lostAfterMs: number;
  readonly #onLost: (state: ConnectionState) => void;
  #timer: NodeJS.Timeout | undefined;

  /** `onLost` runs once a busy session has waited `lostAfterMs` for the streams to come back. */
  constructor(lostAfterMs: number | undefined, onLost: (state: ConnectionState) => void) {
    this.#lostAfterMs = checkedBound(lostAfterMs);
    this.#onLost = onLost;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get connected(): boolean {
    return this.#state.state === "connected";
  }

  /** Takes in what the backend reported; returns the new state when it is news, to publish. */
  report(report: BackendConnection, now = Date.now()): ConnectionState | undefined {
    if (report.state === "connected") {
      if (this.connected) return undefined;
      this.#state = { state: "connected", since: now, attempt: 0 };
      this.#reconnected = true;
      return this.#state;
    }
    const since = this.connected ? now : this.#state.since;
    this.#state = { state: "reconnecting", since, attempt: report.attempt, reason: report.reason };
    return this.#state;
  }

  /**
   * Arms the connection-lost bound while the streams are down and the session is busy, and
   * drops it otherwise. It counts from when the session became busy in this outage: a turn
   * running when the connection went gets the whole bound, and so does an input sent during a
   * long outage (the server took it, so it answers; the streams may just not have retried yet).
   */
  watch(busy: boolean): void {
    if (this.connected || !busy || !Number.isFinite(this.#lostAfterMs)) {
      this.stop();
      return;
    }
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.connected) this.#onLost(this.#state);
    }, this.#lostAfterMs);
    this.#timer.unref();
  }

  /** Whether an outage ended since the last call (the server may have restarted meanwhile). */
  takeReconnected(): boolean {
    const reconnected = this.#reconnected;
    this.#reconnected = false;
    return reconnected;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** What a turn ended `connection-lost` is told. */
export function connectionLostMessage(state: ConnectionState, now = Date.now()): string {
  const seconds = Math.round((now - state.since) / 1000);
  return (
    `the connection to the server was lost ${seconds} s ago and has not come back ` +
    `(${state.attempt} failed attempts, last: ${state.reason ?? "unknown"}); ` +
    "the turn may go on upstream"
  );
}

function checkedBound(option: number | undefined): number {
  const value = option ?? DEFAULT_CONNECTION_LOST_AFTER_MS;
  if (!(value > 0 && (value <= MAX_TIMER_MS || value === Number.POSITIVE_INFINITY))) {
    throw new UsageError(
      `connectionLostAfterMs must be > 0 and at most ${MAX_TIMER_MS} ms (Infinity: wait for as long as it takes), got ${value}`,
    );
  }
  return value;
}
