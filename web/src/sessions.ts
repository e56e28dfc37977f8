/**
 * The session list, kept fresh by polling (the sidecar has no stream of session changes): a
 * session's running and waiting badges follow within a poll, the open one's at once (the chat
 * overlays its live state).
 *
 * The poll is also the page's pulse: when that many polls in a row find nothing answering at
 * the page's origin, the sidecar is taken for gone (stopped, or started again on another port
 * with another token, which this page cannot follow) and the polling stops, rather than the
 * page retrying a dead address for ever.
 */
import type { BridgeClient, SessionInfo } from "opencode-bridge/client";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { unanswered } from "./sidecar-reach.js";

const POLL_MS = 2000;
const CALL_BOUND_MS = 10_000;
/** Polls in a row that reach nothing before the sidecar is taken for gone (about 15 s). */
const UNANSWERED_POLLS = 8;

export interface Sessions {
  list: SessionInfo[] | undefined;
  refresh: () => Promise<void>;
  /** Nothing has answered the last polls: the polling stopped (see above). */
  gone: boolean;
}

export function useSessions(client: BridgeClient, onError: (error: unknown) => void): Sessions {
  const [list, setList] = useState<SessionInfo[] | undefined>(undefined);
  const [gone, setGone] = useState(false);
  // Read through a ref: a new handler each render must not restart the polling.
  const report = useRef(onError);
  report.current = onError;
  /** Whether the sidecar answered (anything, an error included). */
  const load = useCallback(
    async (signal?: AbortSignal): Promise<boolean> => {
      try {
        const fresh = await client.listSessions({
          timeoutMs: CALL_BOUND_MS,
          ...(signal === undefined ? {} : { signal }),
        });
        // Most polls change nothing: keep the old list then, so nothing is drawn again.
        setList((old) => (JSON.stringify(old) === JSON.stringify(fresh) ? old : fresh));
        return true;
      } catch (error) {
        if (signal?.aborted !== true) report.current(error);
        return !unanswered(error);
      }
    },
    [client],
  );
  useEffect(() => {
    const abort = new AbortController();
    setGone(false);
    // One poll at a time: the next starts a while after the last one answered.
    void (async () => {
      let unanswered = 0;
      while (!abort.signal.aborted) {
        unanswered = (await load(abort.signal)) ? 0 : unanswered + 1;
        if (unanswered >= UNANSWERED_POLLS) {
          setGone(true);
          return;
        }
        await pause(POLL_MS, abort.signal);
      }
    })();
    return () => abort.abort();
  }, [load]);
  return {
    list,
    refresh: async () => {
      await load();
    },
    gone,
  };
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

/**
 * When a session was last active: its last event, else its creation. Not its record's last
 * change (`updatedAt`): a stop releases every session and a start opens them again, which
 * made a session with no turns the newest of all ("just now") after a restart.
 */
export function lastActivity(session: SessionInfo): number | undefined {
  return session.lastActivityAt ?? session.createdAt;
}

/** Most recently active first; sessions killed are not offered. */
export function sortedSessions(list: readonly SessionInfo[]): SessionInfo[] {
  return list
    .filter((session) => session.state !== "killed")
    .sort((a, b) => (lastActivity(b) ?? 0) - (lastActivity(a) ?? 0));
}
