/**
 * The session list, kept fresh by polling (the sidecar has no stream of session changes): a
 * session's running and waiting badges follow within a poll, the open one's at once (the chat
 * overlays its live state).
 */
import type { BridgeClient, SessionInfo } from "opencode-bridge/client";
import { useCallback, useEffect, useState } from "preact/hooks";

const POLL_MS = 2000;
const CALL_BOUND_MS = 10_000;

export interface Sessions {
  list: SessionInfo[] | undefined;
  refresh: () => Promise<void>;
}

export function useSessions(client: BridgeClient, onError: (error: unknown) => void): Sessions {
  const [list, setList] = useState<SessionInfo[] | undefined>(undefined);
  const refresh = useCallback(async () => {
    try {
      setList(await client.listSessions({ timeoutMs: CALL_BOUND_MS }));
    } catch (error) {
      onError(error);
    }
  }, [client, onError]);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  return { list, refresh };
}

/** Most recent first; sessions killed are not offered. */
export function sortedSessions(list: readonly SessionInfo[]): SessionInfo[] {
  return list
    .filter((session) => session.state !== "killed")
    .sort((a, b) => (b.updatedAt ?? b.createdAt ?? 0) - (a.updatedAt ?? a.createdAt ?? 0));
}
