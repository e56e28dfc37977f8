/**
 * Whether a backend's native streams reach the server, from what each stream's reader reports,
 * combined into the one state a session shows. A stream is down from a failed attempt to
 * (re)connect until it connects again. The live stream's connection also counts for the
 * durable one: 1.18's durable stream withholds its headers until its next event, so an idle
 * one never says it connected, while a live stream that connects again proves the server
 * answers (the durable stream retries on its own backoff and resumes from its cursor).
 */
import type { StreamConnectionChange } from "../transport/transport.js";
import type { BackendConnection } from "./backend.js";

export class StreamHealth<Name extends string> {
  /** Streams whose last report was a failed attempt, with the count of failures in a row. */
  readonly #down = new Map<Name, { attempt: number; reason: string }>();
  readonly #report: (connection: BackendConnection) => void;
  /** The stream whose connection vouches for every stream (the live one). */
  readonly #vouching: Name;

  constructor(vouching: Name, report: (connection: BackendConnection) => void) {
    this.#vouching = vouching;
    this.#report = report;
  }

  /** What the reader of `stream` reported; the combined state is passed on when it changes. */
  change(stream: Name, change: StreamConnectionChange): void {
    const wasDown = this.#down.size > 0;
    if (change.state === "connected") {
      if (stream === this.#vouching) this.#down.clear();
      else this.#down.delete(stream);
      if (wasDown && this.#down.size === 0) this.#report({ state: "connected" });
      return;
    }
    this.#down.set(stream, { attempt: change.attempt, reason: change.reason });
    const attempt = Math.max(...[...this.#down.values()].map((down) => down.attempt));
    this.#report({ state: "reconnecting", attempt, reason: change.reason });
  }

  /** Whether `stream`'s last report was a failed attempt (it has not connected since). */
  isDown(stream: Name): boolean {
    return this.#down.has(stream);
  }

  /**
   * `stream` was closed on purpose: whatever it reported no longer holds (a stream that is not
   * read cannot be down).
   */
  forget(stream: Name): void {
    if (this.#down.delete(stream) && this.#down.size === 0) this.#report({ state: "connected" });
  }

  /** A stream's reader calls this; `stream` names it in the combined state. */
  listener(stream: Name): (change: StreamConnectionChange) => void {
    return (change) => this.change(stream, change);
  }
}
