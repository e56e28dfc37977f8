/**
 * What the review panel shows, read from the sidecar: the session's (or one turn's) changes
 * with their diffs, and the working tree's status. Read again when the session says its files
 * changed (`files.changed` at a turn's end) or an undo or redo moved them (`undone`), so the
 * panel follows the session while it is open.
 */
import type { BridgeClient, SessionChangesView, VcsStatusView } from "opencode-bridge/client";
import { useCallback, useEffect, useState } from "preact/hooks";
import { describe } from "../live-session.js";

const READ_BOUND_MS = 30_000;

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
  const [read, setRead] = useState<{ of: string; changes: SessionChangesView } | undefined>();
  const [vcs, setVcs] = useState<VcsStatusView | string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((count) => count + 1), []);
  // `changedWhen` and `attempt` are in the dependencies only to say when to read again.
  useEffect(() => {
    const abort = new AbortController();
    const scope = turnId ?? "";
    const options = { signal: abort.signal, timeoutMs: READ_BOUND_MS };
    setLoading(true);
    client
      .changes(sessionId, turnId === undefined ? options : { ...options, turnId })
      .then((changes) => {
        setRead({ of: scope, changes });
        setError(undefined);
      })
      .catch((failure: unknown) => {
        if (!abort.signal.aborted) setError(describe(failure));
      })
      .finally(() => {
        if (!abort.signal.aborted) setLoading(false);
      });
    client
      .vcs(sessionId, options)
      .then(setVcs)
      .catch((failure: unknown) => {
        if (!abort.signal.aborted) setVcs(describe(failure));
      });
    return () => abort.abort();
  }, [client, sessionId, turnId, attempt, ...changedWhen]);
  const changes = read?.of === (turnId ?? "") ? read.changes : undefined;
  return { changes, vcs, error, loading, reload };
}
