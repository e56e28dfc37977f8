/**
 * "Is the live stream connected yet?" A prompt sent before a backend's live stream is
 * connected loses the events (deltas, or everything on the legacy stream) sent before it.
 */
import { ChangeNotifier } from "../util/change-notifier.js";
import type { Logger } from "../util/logger.js";

/** How long a prompt waits for the live stream before going ahead anyway. */
export const LIVE_READY_TIMEOUT_MS = 5_000;

/**
 * The same for a stream that is reconnecting: longer than the reconnect backoff's cap (10 s),
 * so a prompt sent as the server comes back waits for the stream's next attempt.
 */
export const LIVE_RECONNECT_TIMEOUT_MS = 15_000;

/**
 * Bound on a live stream's response headers. OpenCode sends them at once; but a server that is
 * still starting (one restarted on its port) takes connections and never answers them, and a
 * reconnect made then would wait out the whole idle bound (30 s) while the server is back.
 */
export const LIVE_CONNECT_TIMEOUT_MS = 10_000;

export class LiveReadiness {
  #connected = false;
  #reconnecting = false;
  /** A retry was asked for and the stream has not reported since (it is not asked again). */
  #retrying = false;
  readonly #changes = new ChangeNotifier();
  readonly #retry: () => void;

  /**
   * `retry` makes the stream's next attempt now (not after its backoff, nor after an attempt
   * that is not answered): asked when a prompt waits for the stream to come back, since the
   * user acting is a sign the server may be back.
   */
  constructor(retry: () => void = () => {}) {
    this.#retry = retry;
  }

  /** The stream connected (again). */
  connected(): void {
    this.#connected = true;
    this.#reconnecting = false;
    this.#retrying = false;
    this.#changes.notify();
  }

  /**
   * The stream failed to reconnect: a prompt now waits (bounded) for it to come back, as for
   * the first connection, instead of going out while its events cannot be heard.
   */
  disconnected(): void {
    this.#connected = false;
    this.#reconnecting = true;
    this.#retrying = false;
  }

  /**
   * The connection was dropped on purpose and a new one is under way: a prompt waits for it as
   * while reconnecting, but asks for no retry before it reports (it would drop the new one).
   */
  reopened(): void {
    this.disconnected();
    this.#retrying = true;
  }

  /** The stream was connected and is down now (it is being reconnected). */
  get reconnecting(): boolean {
    return this.#reconnecting;
  }

  /** A stream that is down tries again now, once until it next reports. */
  #retryNow(): void {
    if (!this.#reconnecting || this.#retrying) return;
    this.#retrying = true;
    this.#retry();
  }

  /** Waits (bounded) for the stream to be connected; whether it is. */
  connectedWithin(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    this.#retryNow();
    return this.#changes.until(() => this.#connected, {
      what: "waiting for the live stream",
      timeoutMs,
      signal,
    });
  }

  /** Waits (bounded) for the (re)connection; past the bound it warns and goes on. */
  async wait(
    signal: AbortSignal | undefined,
    context: { sessionId: string; logger: Logger },
    timeoutMs = this.#reconnecting ? LIVE_RECONNECT_TIMEOUT_MS : LIVE_READY_TIMEOUT_MS,
  ): Promise<void> {
    this.#retryNow();
    const connected = await this.#changes.until(() => this.#connected, {
      what: "waiting for the live stream",
      timeoutMs,
      signal,
    });
    if (!connected) {
      context.logger.warn("the live stream is not connected yet; events may be missed", {
        sessionId: context.sessionId,
      });
    }
  }
}
