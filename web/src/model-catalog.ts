/** The sidecar's model catalog, fetched once per client (the model picker's options). */
import type { BridgeClient, ModelCatalog } from "opencode-bridge/client";
import { useEffect, useState } from "preact/hooks";

export function useModelCatalog(client: BridgeClient): ModelCatalog | undefined {
  const [catalog, setCatalog] = useState<ModelCatalog | undefined>(undefined);
  useEffect(() => {
    const abort = new AbortController();
    client
      .models({ signal: abort.signal, timeoutMs: 30_000 })
      .then(setCatalog)
      // No catalog, no picker: the session keeps its model.
      .catch(() => {});
    return () => abort.abort();
  }, [client]);
  return catalog;
}
