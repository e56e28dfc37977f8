/**
 * The sidecar's model catalog, fetched once per client (the model picker's options), once
 * `wanted`: the chat asks for it after the open conversation is drawn, not in its way.
 */
import type { BridgeClient, ModelCatalog } from "opencode-bridge/client";
import { useEffect, useState } from "preact/hooks";

export function useModelCatalog(client: BridgeClient, wanted: boolean): ModelCatalog | undefined {
  const [catalog, setCatalog] = useState<ModelCatalog | undefined>(undefined);
  const asked = wanted || catalog !== undefined;
  useEffect(() => {
    if (!asked) return;
    const abort = new AbortController();
    client
      .models({ signal: abort.signal, timeoutMs: 30_000 })
      .then(setCatalog)
      // No catalog, no picker: the session keeps its model.
      .catch(() => {});
    return () => abort.abort();
  }, [client, asked]);
  return catalog;
}
