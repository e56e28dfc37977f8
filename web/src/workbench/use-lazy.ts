/**
 * A component loaded on demand (a dynamic import) the first time a panel opens, so the chat's
 * first load does not carry it (xterm.js alone is larger than the rest of the chat).
 */
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";

export type Lazy<P> =
  | { kind: "loading" }
  | { kind: "loaded"; Component: ComponentType<P> }
  | { kind: "failed"; message: string };

export function useLazy<P>(load: () => Promise<ComponentType<P>>): Lazy<P> {
  const [lazy, setLazy] = useState<Lazy<P>>({ kind: "loading" });
  useEffect(() => {
    let gone = false;
    load().then(
      (Component) => !gone && setLazy({ kind: "loaded", Component }),
      (error: unknown) => !gone && setLazy({ kind: "failed", message: String(error) }),
    );
    return () => {
      gone = true;
    };
  }, []);
  return lazy;
}
