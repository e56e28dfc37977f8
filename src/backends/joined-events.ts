/**
 * A session's share of a `SharedStream` as an async iterable, for code that reads its events
 * with `for await` (the serve backend's merged stream). Events wait in a queue until read:
 * the stream's reader never waits for a session, and a session loses nothing it was sent.
 * A (re)connection is queued with them: the session learns of it after the events that came
 * before it, as it would on a connection of its own.
 */
import { AbortError } from "../errors.js";
import type { Parsed } from "../protocol/common.js";
import type { StreamConnectionChange } from "../transport/transport.js";
import type { SharedStream } from "./shared-stream.js";

export interface JoinOptions {
  /** Leaves the stream; the iteration then throws `AbortError`. */
  signal: AbortSignal;
  /** The stream (re)connected (see `SharedStreamListener.connected`). */
  onConnected?: () => void;
  onConnection?: (change: StreamConnectionChange) => void;
}

export async function* joinedEvents<T>(
  stream: SharedStream<T>,
  key: string,
  options: JoinOptions,
): AsyncIterable<Parsed<T>> {
  const { signal } = options;
  if (signal.aborted) throw new AbortError("the shared stream was left");
  const CONNECTED = Symbol("connected");
  let queue: (Parsed<T> | typeof CONNECTED)[] = [];
  let end: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const leave = stream.join(key, {
    event: (parsed) => {
      queue.push(parsed);
      notify();
    },
    connected: () => {
      queue.push(CONNECTED);
      notify();
    },
    connection: (change) => options.onConnection?.(change),
    ended: (error) => {
      end = { error };
      notify();
    },
  });
  signal.addEventListener("abort", notify, { once: true });
  try {
    for (;;) {
      // Left: at once, queued events or not. Ended: after what was queued.
      if (signal.aborted) throw new AbortError("the shared stream was left");
      if (queue.length > 0) {
        const batch = queue;
        queue = [];
        for (const item of batch) {
          if (item === CONNECTED) options.onConnected?.();
          else yield item;
        }
        continue;
      }
      if (end !== undefined) throw end.error;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    signal.removeEventListener("abort", notify);
    leave();
  }
}
