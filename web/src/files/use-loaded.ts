/** Something read from the sidecar for a key (a directory, a file), read again when the key changes. */
import { useEffect, useState } from "preact/hooks";

export type Loaded<T> =
  | { kind: "loading" }
  | { kind: "loaded"; value: T }
  | { kind: "failed"; message: string };

export function useLoaded<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T> & { key?: string }>({ kind: "loading" });
  useEffect(() => {
    const abort = new AbortController();
    setLoaded({ kind: "loading" });
    load(abort.signal).then(
      (value) => !abort.signal.aborted && setLoaded({ kind: "loaded", value, key }),
      (error: unknown) =>
        !abort.signal.aborted &&
        setLoaded({
          kind: "failed",
          message: error instanceof Error ? error.message : String(error),
          key,
        }),
    );
    return () => abort.abort();
  }, [key]);
  return loaded;
}
