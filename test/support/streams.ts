/** Helpers for consuming event streams in tests, always bounded. */

/**
 * Collects items from `iterable` until `done(item)` is true (that item included), then
 * leaves the loop, which closes the stream. Rejects if `timeoutMs` passes first.
 */
export async function collectUntil<T>(
  iterable: AsyncIterable<T>,
  done: (item: T, collected: T[]) => boolean,
  timeoutMs = 60_000,
): Promise<T[]> {
  const collected: T[] = [];
  const iterator = iterable[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`stream did not finish within ${timeoutMs} ms; saw ${collected.length} items`),
        ),
      timeoutMs,
    );
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), timeout]);
      if (next.done) return collected;
      collected.push(next.value);
      if (done(next.value, collected)) return collected;
    }
  } finally {
    clearTimeout(timer);
    // Closing can wait on a socket; do not let it hold the test.
    void iterator.return?.();
  }
}

/**
 * Starts consuming `iterable` in the background into an array; `first` resolves with the
 * first item (for example `server.connected`, proof the subscription is live).
 */
export function consumeInBackground<T>(iterable: AsyncIterable<T>): {
  items: T[];
  first: Promise<T>;
  until(predicate: (items: T[]) => boolean, timeoutMs?: number): Promise<T[]>;
  finished: Promise<void>;
} {
  const items: T[] = [];
  const waiters: Array<() => void> = [];
  let resolveFirst: (item: T) => void = () => {};
  let rejectFirst: (error: unknown) => void = () => {};
  const first = new Promise<T>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  const finished = (async () => {
    for await (const item of iterable) {
      items.push(item);
      if (items.length === 1) resolveFirst(item);
      for (const wake of waiters.splice(0)) wake();
    }
  })();
  finished.catch(rejectFirst);
  return {
    items,
    first,
    finished,
    async until(predicate, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(items)) {
        if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
        await Promise.race([
          new Promise<void>((resolve) => waiters.push(resolve)),
          new Promise((resolve) => setTimeout(resolve, 100)),
          finished,
        ]);
      }
      return items;
    },
  };
}

/**
 * Reads a stream only when asked, so that what was read (and what a recorder saw) is exactly
 * what the code asked for, in program order. Scenarios use it to stay deterministic.
 */
export class PullReader<T> {
  readonly items: T[] = [];
  readonly #iterator: AsyncIterator<T>;

  constructor(iterable: AsyncIterable<T>) {
    this.#iterator = iterable[Symbol.asyncIterator]();
  }

  /** Reads until `done(item)` holds for a read item; returns the items read by this call. */
  async until(done: (item: T) => boolean, timeoutMs = 60_000): Promise<T[]> {
    const read: T[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const remaining = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const next = await Promise.race([
        this.#iterator.next(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(new Error(`stream did not deliver the awaited item within ${timeoutMs} ms`)),
            Math.max(0, remaining),
          );
        }),
      ]).finally(() => clearTimeout(timer));
      if (next.done) throw new Error("the stream ended before the awaited item");
      read.push(next.value);
      this.items.push(next.value);
      if (done(next.value)) return read;
    }
  }

  /** Stops reading and closes the stream. */
  async close(): Promise<void> {
    await this.#iterator.return?.();
  }
}
