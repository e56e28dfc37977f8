/**
 * What the review panel shows, read from the sidecar: the session's (or one turn's) changes
 * with their diffs, and the working tree's status. Read again when the session says its files
 * changed (`files.changed` at a turn's end) or an undo or redo moved them (`undone`), so the
 * panel follows the session while it is open. The last changes read of a few scopes are kept:
 * the panel opened again shows them at once while it reads them again (marked busy until then).
 */
import type { BridgeClient, SessionChangesView, VcsStatusView } from "opencode-bridge/client";
import { useCallback, useEffect, useState } from "preact/hooks";
import { describe } from "../live-session.js";

const READ_BOUND_MS = 30_000;
/** Scopes (a session, or a turn of one) whose last changes read are kept for the next open. */
const KEPT_SCOPES = 8;
/** By `${sessionId}\n${turnId}`, least recently read first (a Map keeps insertion order). */
const kept = new Map<string, SessionChangesView>();

function keep(key: string, changes: SessionChangesView): void {
  kept.delete(key);
  kept.set(key, changes);
  for (const oldest of kept.keys()) {
    if (kept.size <= KEPT_SCOPES) break;
    kept.delete(oldest);
  }
}

export interface ReviewData {
  changes: SessionChangesView | undefined;
  /** Undefined while it loads; a string when it could not be read (outside git, say). */
  vcs: VcsStatusView | string | undefined;
  /** Why the changes could not be read. */
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

export function useReviewData(
  client: BridgeClient,
  sessionId: string,
  turnId: string | undefined,
  /** Anything whose change means the files may have changed (read again then). */
  changedWhen: readonly unknown[],
): ReviewData {
  // Kept with the scope they are of: another turn's (or the session's) are not shown meanwhile.
  const [read, setRead] = useState<{ of: string; changes: SessionChangesView } | undefined>(() => {
    const changes = kept.get(`${sessionId}\n${turnId ?? ""}`);
    return changes === undefined ? undefined : { of: turnId ?? "", changes };
  });
  const [vcs, setVcs] = useState<VcsStatusView | string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((count) => count + 1), []);
  // `changedWhen` and `attempt` are in the dependencies only to say when to read again.
  useEffect(() => {
    const abort = new AbortController();
    const scope = turnId ?? "";
    const key = `${sessionId}\n${scope}`;
    const options = { signal: abort.signal, timeoutMs: READ_BOUND_MS };
    setLoading(true);
    const known = kept.get(key);
    if (known !== undefined) setRead({ of: scope, changes: known });
    const readVcs = () =>
      client
        .vcs(sessionId, options)
        .then(setVcs)
        .catch((failure: unknown) => {
          if (!abort.signal.aborted) setVcs(describe(failure));
        });
    client
      .changes(sessionId, turnId === undefined ? options : { ...options, turnId })
      .then((changes) => {
        keep(key, changes);
        setRead({ of: scope, changes });
        setError(undefined);
      })
      .catch((failure: unknown) => {
        if (!abort.signal.aborted) setError(describe(failure));
      })
      .finally(() => {
        if (!abort.signal.aborted) setLoading(false);
        // After the changes: OpenCode's status of a large working tree takes seconds, and
        // asked beside them it slowed their answer (it shares the server's time with them).
        void readVcs();
      });
    return () => abort.abort();
  }, [client, sessionId, turnId, attempt, ...changedWhen]);
  const changes = read?.of === (turnId ?? "") ? read.changes : undefined;
  return { changes, vcs, error, loading, reload };
}
