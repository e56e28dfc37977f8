/** A transcript store that fails when told to, for the runtime's handling of a failed write. */
import { IN_MEMORY, SqliteStore } from "../../src/store/sqlite-store.js";
import type { Store } from "../../src/store/store.js";

/** A store that fails its next `failures` appends (disk full, locked), then works again. */
export class FlakyStore {
  failures = 0;
  readonly store: Store;

  constructor(readonly inner: SqliteStore = SqliteStore.open(IN_MEMORY)) {
    // Every method but `append` goes straight to the SQLite store.
    this.store = new Proxy(inner, {
      get: (target, key) => {
        if (key === "append") {
          return (...args: Parameters<Store["append"]>) => {
            if (this.failures > 0) {
              this.failures--;
              return Promise.reject(new Error("SQLITE_FULL: database or disk is full"));
            }
            return target.append(...args);
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}
