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

export class LiveReadiness {
  #connected = false;
  #reconnecting = false;
  readonly #changes = new ChangeNotifier();

  /** The stream connected (again). */
  connected(): void {
    this.#connected = true;
    this.#reconnecting = false;
    this.#changes.notify();
  }

  /**
   * The stream failed to reconnect: a prompt now waits (bounded) for it to come back, as for
   * the first connection, instead of going out while its events cannot be heard.
   */
  disconnected(): void {
    this.#connected = false;
    this.#reconnecting = true;
  }

  /** The stream was connected and is down now (it is being reconnected). */
  get reconnecting(): boolean {
    return this.#reconnecting;
  }

  /** Waits (bounded) for the stream to be connected; whether it is. */
  connectedWithin(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
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
