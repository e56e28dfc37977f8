/**
 * The session list, kept fresh by polling (the sidecar has no stream of session changes): a
 * session's running and waiting badges follow within a poll, the open one's at once (the chat
 * overlays its live state).
 */
import type { BridgeClient, SessionInfo } from "opencode-bridge/client";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

const POLL_MS = 2000;
const CALL_BOUND_MS = 10_000;

export interface Sessions {
  list: SessionInfo[] | undefined;
  refresh: () => Promise<void>;
}

export function useSessions(client: BridgeClient, onError: (error: unknown) => void): Sessions {
  const [list, setList] = useState<SessionInfo[] | undefined>(undefined);
  // Read through a ref: a new handler each render must not restart the polling.
  const report = useRef(onError);
  report.current = onError;
  const load = useCallback(
    async (signal?: AbortSignal) => {
      try {
        const fresh = await client.listSessions({
          timeoutMs: CALL_BOUND_MS,
          ...(signal === undefined ? {} : { signal }),
        });
        // Most polls change nothing: keep the old list then, so nothing is drawn again.
        setList((old) => (JSON.stringify(old) === JSON.stringify(fresh) ? old : fresh));
      } catch (error) {
        if (signal?.aborted !== true) report.current(error);
      }
    },
    [client],
  );
  useEffect(() => {
    const abort = new AbortController();
    // One poll at a time: the next starts a while after the last one answered.
    void (async () => {
      while (!abort.signal.aborted) {
        await load(abort.signal);
        await pause(POLL_MS, abort.signal);
      }
    })();
    return () => abort.abort();
  }, [load]);
  return { list, refresh: () => load() };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** When a session was last active: its last event, else its record's last change. */
export function lastActivity(session: SessionInfo): number | undefined {
  return session.lastActivityAt ?? session.updatedAt ?? session.createdAt;
}

/** Most recently active first; sessions killed are not offered. */
export function sortedSessions(list: readonly SessionInfo[]): SessionInfo[] {
  return list
    .filter((session) => session.state !== "killed")
    .sort((a, b) => (lastActivity(b) ?? 0) - (lastActivity(a) ?? 0));
}
