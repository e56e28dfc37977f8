/** Interleaving several async iterables into one, in arrival order. */

/**
 * Yields items from all `sources` as they arrive. When the consumer stops, every source is
 * closed. A source that throws is reported to `onError` and the others go on; the merged
 * stream throws only when every source has ended and the first one failed with the error.
 */
export async function* mergeAsync<T>(
  sources: readonly AsyncIterable<T>[],
  onError: (error: unknown, index: number) => void = () => {},
): AsyncIterable<T> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  type Step = { index: number; result: IteratorResult<T> } | { index: number; error: unknown };
  const pulls = new Map<number, Promise<Step>>();
  const pull = (index: number): void => {
    const iterator = iterators[index];
    if (iterator === undefined) return;
    pulls.set(
      index,
      iterator.next().then(
        (result) => ({ index, result }),
        (error: unknown) => ({ index, error }),
      ),
    );
  };
  for (const index of iterators.keys()) pull(index);
  let firstError: { error: unknown } | undefined;
  try {
    while (pulls.size > 0) {
      const step = await Promise.race(pulls.values());
      pulls.delete(step.index);
      if ("error" in step) {
        onError(step.error, step.index);
        firstError ??= { error: step.error };
        continue;
      }
      if (step.result.done) continue;
      pull(step.index);
      yield step.result.value;
    }
    if (firstError !== undefined) throw firstError.error;
  } finally {
    // An async generator runs `return()` only after its pending `next()` settles, which for a
    // quiet stream can take a long time; the sources' owner aborts their signal to end them,
    // so closing is requested here, not awaited.
    for (const [index] of pulls) {
      void iterators[index]?.return?.()?.catch(() => {});
      void pulls.get(index)?.catch(() => {});
    }
  }
}
