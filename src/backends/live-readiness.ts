/**
 * "Is the live stream connected yet?" A prompt sent before a backend's live stream is
 * connected loses the events (deltas, or everything on the legacy stream) sent before it.
 */
import { AbortError } from "../errors.js";
import { withDeadline } from "../util/abort.js";
import type { Logger } from "../util/logger.js";

/** How long a prompt waits for the live stream before going ahead anyway. */
export const LIVE_READY_TIMEOUT_MS = 5_000;

export class LiveReadiness {
  #connected: () => void = () => {};
  readonly #ready = new Promise<void>((resolve) => {
    this.#connected = resolve;
  });

  /** The stream connected (again). */
  connected(): void {
    this.#connected();
  }

  /** Waits (bounded) for the first connection; past the bound it warns and goes on. */
  async wait(
    signal: AbortSignal | undefined,
    context: { sessionId: string; logger: Logger },
    timeoutMs = LIVE_READY_TIMEOUT_MS,
  ): Promise<void> {
    const deadline = withDeadline("waiting for the live stream", timeoutMs, signal);
    try {
      await Promise.race([
        this.#ready,
        new Promise<void>((resolve) =>
          deadline.signal.addEventListener("abort", () => resolve(), { once: true }),
        ),
      ]);
    } finally {
      deadline.dispose();
    }
    if (signal?.aborted) throw new AbortError("send", { cause: signal.reason });
    if (deadline.signal.aborted) {
      context.logger.warn("the live stream is not connected yet; events may be missed", {
        sessionId: context.sessionId,
      });
    }
  }
}
