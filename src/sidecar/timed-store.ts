/**
 * A store whose `append` (the write of a batch of durable events) is timed into a metric: the
 * runtime has no hook for it, and the store is the one place every durable event passes.
 */
import type { Store } from "../store/store.js";

/** `store`, with the duration of each `append` (seconds) handed to `observe`. */
export function timedStore(store: Store, observe: (seconds: number) => void): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === "append") {
        const append: Store["append"] = (...args) => {
          const started = performance.now();
          // Until the commit that carried it: the wait for the group's transaction included.
          return target.append(...args).finally(() => {
            observe((performance.now() - started) / 1000);
          });
        };
        return append;
      }
      // Bound to the store itself: its methods use private fields, which a proxy has not.
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
