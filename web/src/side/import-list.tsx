/**
 * "Import from OpenCode": the user's own OpenCode sessions (`opencode run`, the TUI) in the
 * allowed directories that the sidecar does not keep, asked for when unfolded; Import brings
 * one in with its whole history and opens it. Titles are OpenCode's (untrusted: text only).
 * A backend that cannot import (`capabilities.importSessions`) answers 422: said as such.
 */
import { BridgeApiError, type BridgeClient, type OpencodeSession } from "opencode-bridge/client";
import { useState } from "preact/hooks";
import { describe } from "../live-session.js";
import { sessionLabel } from "../session-label.js";
import { timeAgo } from "../time-ago.js";

const LIST_BOUND_MS = 30_000;
/** An import reads the whole history (up to 5,000 messages) and opens the session. */
const IMPORT_BOUND_MS = 120_000;

type Listing =
  | { state: "folded" }
  | { state: "loading" }
  | { state: "shown"; sessions: OpencodeSession[] }
  | { state: "failed"; why: string };

export function ImportList(props: {
  client: BridgeClient;
  /** Opens the imported session (its id is OpenCode's). */
  onImported: (sessionId: string) => void;
}) {
  const { client } = props;
  const [listing, setListing] = useState<Listing>({ state: "folded" });
  const [importing, setImporting] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const load = async () => {
    setListing({ state: "loading" });
    try {
      const sessions = await client.opencodeSessions({}, { timeoutMs: LIST_BOUND_MS });
      setListing({ state: "shown", sessions });
    } catch (error) {
      setListing({ state: "failed", why: whyNot(error) });
    }
  };
  const bring = async (session: OpencodeSession) => {
    setImporting(session.id);
    setProblem(undefined);
    try {
      const imported = await client.importSession(
        session.id,
        { directory: session.directory },
        { timeoutMs: IMPORT_BOUND_MS },
      );
      setListing((old) =>
        old.state === "shown"
          ? { state: "shown", sessions: old.sessions.filter((s) => s.id !== session.id) }
          : old,
      );
      props.onImported(imported.id);
    } catch (error) {
      setProblem(`Could not import it: ${describe(error)}`);
    } finally {
      setImporting(undefined);
    }
  };
  const unfolded = listing.state !== "folded";
  return (
    <section class="import" data-testid="import-opencode" aria-label="Import from OpenCode">
      <button
        type="button"
        class="import-toggle"
        data-testid="import-toggle"
        aria-expanded={unfolded}
        onClick={() => (unfolded ? setListing({ state: "folded" }) : void load())}
      >
        <span aria-hidden="true">{unfolded ? "▾ " : "▸ "}</span>
        Import from OpenCode
      </button>
      {listing.state === "loading" ? (
        <p class="muted project-note" role="status">
          Looking for OpenCode sessions…
        </p>
      ) : null}
      {listing.state === "failed" ? (
        <p class="muted project-note" data-testid="import-problem">
          {listing.why}
        </p>
      ) : null}
      {listing.state === "shown" ? (
        listing.sessions.length === 0 ? (
          <p class="muted project-note" data-testid="import-none">
            No OpenCode session here that is not already in the list.
          </p>
        ) : (
          <ul class="import-list">
            {listing.sessions.map((session) => (
              <li key={session.id} data-testid="import-item" data-upstream-id={session.id}>
                <span class="session-name">{sessionLabel(session.title)}</span>
                <span class="session-dir" title={session.directory}>
                  {session.directory} · {timeAgo(session.updatedAt)}
                </span>
                <button
                  type="button"
                  data-testid="import-session"
                  disabled={importing !== undefined}
                  aria-busy={importing === session.id}
                  aria-label={`Import ${sessionLabel(session.title)}`}
                  onClick={() => void bring(session)}
                >
                  {importing === session.id ? "Importing…" : "Import"}
                </button>
              </li>
            ))}
          </ul>
        )
      ) : null}
      {problem === undefined ? null : (
        <p class="error-message" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

function whyNot(error: unknown): string {
  if (error instanceof BridgeApiError && error.status === 422) {
    return "This sidecar's backend cannot import OpenCode sessions (the serve backend can).";
  }
  return `Could not list OpenCode's sessions: ${describe(error)}`;
}
