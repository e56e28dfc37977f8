/**
 * Reads of the same page shared while under way: the followers of one session in a process are
 * woken by the same notice, usually at the same seq, and would each ask the store for the same
 * rows. One read answers them all (the events are the same committed rows; nothing mutates
 * them); a read asked after it finished is a new one, so nobody gets a stale page.
 */
import type { CanonicalEvent } from "../events/canonical.js";
import type { ReadOptions, Store } from "../store/store.js";

export class SharedReads implements Pick<Store, "read"> {
  readonly #store: Pick<Store, "read">;
  readonly #underWay = new Map<string, Promise<CanonicalEvent[]>>();

  constructor(store: Pick<Store, "read">) {
    this.#store = store;
  }

  read(sessionId: string, options: ReadOptions = {}): Promise<CanonicalEvent[]> {
    const key = `${options.after ?? 0} ${options.limit ?? "all"} ${sessionId}`;
    const shared = this.#underWay.get(key);
    if (shared !== undefined) return shared;
    const reading = this.#store.read(sessionId, options).finally(() => {
      this.#underWay.delete(key);
    });
    this.#underWay.set(key, reading);
    return reading;
  }
}
