/**
 * A set that keeps only its latest `capacity` members: for what a long-lived session notes
 * once per ask or turn (to drop a late repeat), where a repeat can only come soon after.
 */
import { UsageError } from "../errors.js";

export class RecentSet<T> {
  /** Insertion-ordered: the first member is the oldest. */
  readonly #members = new Set<T>();
  readonly #capacity: number;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new UsageError(`a RecentSet keeps at least 1 member, not ${capacity}`);
    }
    this.#capacity = capacity;
  }

  has(member: T): boolean {
    return this.#members.has(member);
  }

  /** Notes `member` as the latest, forgetting the oldest beyond the capacity. */
  add(member: T): this {
    this.#members.delete(member);
    this.#members.add(member);
    while (this.#members.size > this.#capacity) {
      const oldest = this.#members.values().next();
      if (oldest.done) break;
      this.#members.delete(oldest.value);
    }
    return this;
  }

  get size(): number {
    return this.#members.size;
  }
}
