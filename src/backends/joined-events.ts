/**
 * A session's share of a `SharedStream` as an async iterable, for code that reads its events
 * with `for await`. Events wait in a queue until read: the stream's reader never waits for a
 * session, and a session loses nothing it was sent. A (re)connection is queued with them: the
 * session learns of it after the events that came before it, as it would on a connection of
 * its own.
 */
import { AbortError } from "../errors.js";
import type { Parsed } from "../protocol/common.js";
import type { StreamConnectionChange } from "../transport/transport.js";
import { AsyncQueue } from "../util/async-queue.js";
import type { SharedStream } from "./shared-stream.js";

export interface JoinOptions {
  /** Leaves the stream; the iteration then throws `AbortError`. */
  signal: AbortSignal;
  /** The stream (re)connected (see `SharedStreamListener.connected`). */
  onConnected?: () => void;
  onConnection?: (change: StreamConnectionChange) => void;
}

const CONNECTED = Symbol("connected");

export async function* joinedEvents<T>(
  stream: SharedStream<T>,
  key: string,
  options: JoinOptions,
): AsyncIterable<Parsed<T>> {
  if (options.signal.aborted) throw new AbortError("the shared stream was left");
  const queue = new AsyncQueue<Parsed<T> | typeof CONNECTED>();
  const leave = stream.join(key, {
    event: (parsed) => queue.push(parsed),
    connected: () => queue.push(CONNECTED),
    // What the first event heard dates matters to the delta catch-up only (merged-stream.ts).
    heard: () => {},
    connection: (change) => options.onConnection?.(change),
    ended: (error) => queue.fail(error),
  });
  try {
    for await (const item of queue.read(options.signal, "the shared stream")) {
      if (item === CONNECTED) options.onConnected?.();
      else yield item;
    }
  } finally {
    leave();
  }
}
