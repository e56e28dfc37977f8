import { describe, expect, it, vi } from "vitest";
import { mergeAsync } from "./merge-async.js";

/**
 * A source the test drives by hand: `push` an item, `end` it, `fail` it. It counts the
 * `return()` calls it gets, and a pending `next()` settles `{done: true}` when returned,
 * as a stream whose owner closes it would.
 */
class Source<T> implements AsyncIterable<T>, AsyncIterator<T> {
  readonly #items: IteratorResult<T>[] = [];
  #failure: { error: unknown } | undefined;
  #waiting: { resolve(result: IteratorResult<T>): void; reject(error: unknown): void } | undefined;
  returns = 0;

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this;
  }

  push(value: T): void {
    this.#settle({ value, done: false });
  }

  end(): void {
    this.#settle({ value: undefined, done: true });
  }

  fail(error: unknown): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting.reject(error);
    else this.#failure = { error };
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.#items.shift();
    if (item !== undefined) return Promise.resolve(item);
    if (this.#failure) return Promise.reject(this.#failure.error);
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  async return(): Promise<IteratorResult<T>> {
    this.returns++;
    this.end();
    return { value: undefined, done: true };
  }

  #settle(result: IteratorResult<T>): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting.resolve(result);
    else this.#items.push(result);
  }
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("mergeAsync", () => {
  it("yields items from every source in the order they arrive", async () => {
    const a = new Source<string>();
    const b = new Source<string>();
    const merged = mergeAsync([a, b])[Symbol.asyncIterator]();
    const seen: string[] = [];
    const reading = (async () => {
      for (let result = await merged.next(); !result.done; result = await merged.next()) {
        seen.push(result.value);
      }
    })();
    a.push("a1");
    await settle();
    b.push("b1");
    await settle();
    a.push("a2");
    await settle();
    b.push("b2");
    a.end();
    b.end();
    await reading;
    expect(seen).toEqual(["a1", "b1", "a2", "b2"]);
  });

  it("goes on with the other sources when one fails, and throws its error once all have ended", async () => {
    const a = new Source<string>();
    const b = new Source<string>();
    const onError = vi.fn();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const item of mergeAsync([a, b], onError)) seen.push(item);
    })();
    const failure = new Error("durable stream broke");
    a.fail(failure);
    await settle();
    expect(onError).toHaveBeenCalledWith(failure, 0);
    b.push("b1");
    b.push("b2");
    await settle();
    expect(seen).toEqual(["b1", "b2"]);
    b.end();
    await expect(reading).rejects.toBe(failure);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(a.returns).toBe(0);
  });

  it("throws the first error when several sources fail", async () => {
    const a = new Source<string>();
    const b = new Source<string>();
    const first = new Error("first");
    const reading = (async () => {
      for await (const _ of mergeAsync([a, b])) {
      }
    })();
    b.fail(first);
    await settle();
    a.fail(new Error("second"));
    await expect(reading).rejects.toBe(first);
  });

  it("closes every source still open when the consumer leaves", async () => {
    const a = new Source<string>();
    const b = new Source<string>();
    const c = new Source<string>();
    const merged = mergeAsync([a, b, c])[Symbol.asyncIterator]();
    const first = merged.next();
    c.end();
    await settle();
    a.push("a1");
    expect(await first).toEqual({ value: "a1", done: false });
    await merged.return?.();
    expect([a.returns, b.returns]).toEqual([1, 1]);
    expect(c.returns).toBe(0); // it had ended: nothing to close
  });

  it("closes the other sources when the consumer throws", async () => {
    const a = new Source<string>();
    const b = new Source<string>();
    a.push("a1");
    const consumed = (async () => {
      for await (const _ of mergeAsync([a, b])) throw new Error("consumer failed");
    })();
    await expect(consumed).rejects.toThrow("consumer failed");
    await settle();
    expect([a.returns, b.returns]).toEqual([1, 1]);
  });

  it("does not wait for a source that is slow to close", async () => {
    const a = new Source<string>();
    const stuck: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<string>>(() => {}),
        return: () => new Promise<IteratorResult<string>>(() => {}),
      }),
    };
    a.push("a1");
    for await (const _ of mergeAsync([a, stuck])) break;
    // Reaching here is the point: leaving did not wait on the stuck source's return().
    expect(a.returns).toBe(1);
  });

  it("ends at once with no sources", async () => {
    const seen: unknown[] = [];
    for await (const item of mergeAsync([])) seen.push(item);
    expect(seen).toEqual([]);
  });
});
