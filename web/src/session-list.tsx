/** The sidebar: sessions with their badges, and a button for a new one. */
import type { LiveConversation, SessionInfo } from "opencode-bridge/client";
import { lastActivity, sortedSessions } from "./sessions.js";
import { timeAgo } from "./time-ago.js";

export interface SessionListProps {
  sessions: readonly SessionInfo[] | undefined;
  openId: string | undefined;
  /** The open session's live state: its badges without waiting for the next poll. */
  live: LiveConversation | undefined;
  onOpen: (sessionId: string) => void;
  onNew: () => void;
  /** A new session is being created (the button waits). */
  creating: boolean;
}

export function SessionList(props: SessionListProps) {
  return (
    <nav class="sessions" aria-label="Sessions">
      <button
        type="button"
        class="new-session"
        data-testid="new-session"
        disabled={props.creating}
        aria-busy={props.creating}
        onClick={props.onNew}
      >
        {props.creating ? "Creating session…" : "+ New session"}
      </button>
      {props.sessions === undefined ? <p class="muted">Loading sessions…</p> : null}
      <ul data-testid="session-list">
        {sortedSessions(props.sessions ?? []).map((session) => {
          const open = session.id === props.openId;
          const live = open && props.live !== undefined ? props.live : undefined;
          const running = live === undefined ? session.running : live.running !== undefined;
          const waiting =
            live === undefined
              ? (session.pendingAsks?.length ?? 0) > 0
              : live.pendingAsks.length > 0;
          return (
            <li
              key={session.id}
              data-testid="session-item"
              data-session-id={session.id}
              data-running={String(running)}
              data-waiting={String(waiting)}
              data-directory-missing={String(session.directoryMissing === true)}
              class={open ? "session open" : "session"}
            >
              <button
                type="button"
                aria-current={open ? "true" : undefined}
                onClick={() => props.onOpen(session.id)}
              >
                <span class="session-name">{session.title ?? session.id}</span>
                <span class="badges">
                  {running ? <span class="badge running">running</span> : null}
                  {waiting ? <span class="badge waiting">waiting for you</span> : null}
                  {session.directoryMissing === true ? (
                    <span class="badge gone" title="Its directory no longer exists: read only">
                      directory gone
                    </span>
                  ) : null}
                </span>
                <span class="session-dir">{session.directory}</span>
                <span class="session-when">{timeAgo(lastActivity(session))}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
