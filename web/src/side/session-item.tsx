/**
 * One session of the side list: its name (never its id), badges, directory and last activity,
 * and Delete, which asks first, in place: the entry turns into the question and its answers.
 */
import type { LiveConversation, SessionInfo } from "opencode-bridge/client";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { sessionLabel } from "../session-label.js";
import { lastActivity } from "../sessions.js";
import { timeAgo } from "../time-ago.js";

export interface SessionItemProps {
  session: SessionInfo;
  open: boolean;
  /** The open session's live state: its badges without waiting for the next poll. */
  live: LiveConversation | undefined;
  /** Its turn ended while another session was open, and it was not opened since. */
  finished: boolean;
  onOpen: (sessionId: string) => void;
  /** Deletes it (the sidecar kills it); rejects when that failed (said by the caller). */
  onDelete: (sessionId: string) => Promise<void>;
}

export function SessionItem(props: SessionItemProps) {
  const { session, open } = props;
  const [asking, setAsking] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  const remove = useRef<HTMLButtonElement>(null);
  // Set when the question was closed from the keyboard: focus goes back to Delete then.
  const refocus = useRef(false);
  // In the commit that draws the question: a key pressed right after lands on Cancel, never on
  // the Delete button the question replaced.
  useLayoutEffect(() => {
    if (asking) cancel.current?.focus();
    else if (refocus.current) remove.current?.focus();
    refocus.current = false;
  }, [asking]);
  const live = open ? props.live : undefined;
  const running = live === undefined ? session.running : live.running !== undefined;
  const waiting =
    live === undefined ? (session.pendingAsks?.length ?? 0) > 0 : live.pendingAsks.length > 0;
  const label = sessionLabel(session.title);
  // Waiting says more than finished: an ask holds the turn until it is answered.
  const finished = props.finished && !running && !waiting;
  const close = () => {
    refocus.current = true;
    setAsking(false);
  };
  return (
    <li
      data-testid="session-item"
      data-session-id={session.id}
      data-running={String(running)}
      data-waiting={String(waiting)}
      data-finished={String(finished)}
      data-directory-missing={String(session.directoryMissing === true)}
      class={open ? "session open" : "session"}
    >
      {asking ? (
        <fieldset
          class="session-confirm"
          data-testid="delete-confirm"
          onKeyDown={(event) => event.key === "Escape" && close()}
        >
          <legend>
            Delete <strong>{label}</strong>? It leaves the list and cannot be opened again.
          </legend>
          <div class="session-confirm-actions">
            <button
              type="button"
              class="danger"
              data-testid="delete-confirm-yes"
              disabled={deleting}
              aria-busy={deleting}
              onClick={() => {
                setDeleting(true);
                props
                  .onDelete(session.id)
                  .catch(() => setAsking(false))
                  .finally(() => setDeleting(false));
              }}
            >
              {deleting ? "Deleting…" : "Delete"}
            </button>
            <button
              ref={cancel}
              type="button"
              data-testid="delete-confirm-no"
              disabled={deleting}
              onClick={close}
            >
              Cancel
            </button>
          </div>
        </fieldset>
      ) : (
        <>
          <button
            type="button"
            class="session-open"
            aria-current={open ? "true" : undefined}
            onClick={() => props.onOpen(session.id)}
          >
            <span class="session-name" data-testid="session-name">
              {label}
            </span>
            <span class="badges">
              {running ? <span class="badge running">running</span> : null}
              {waiting ? (
                <span class="badge waiting" data-testid="session-waiting">
                  <span class="needs-dot" aria-hidden="true" />
                  needs your answer
                </span>
              ) : null}
              {finished ? (
                <span class="badge finished" data-testid="session-finished">
                  <span class="needs-dot" aria-hidden="true" />
                  finished
                </span>
              ) : null}
              {session.directoryMissing === true ? (
                <span class="badge gone" title="Its directory no longer exists: read only">
                  directory gone
                </span>
              ) : null}
            </span>
            <span class="session-dir">{session.directory}</span>
            <span class="session-when">{timeAgo(lastActivity(session))}</span>
          </button>
          <button
            ref={remove}
            type="button"
            class="session-delete"
            data-testid="delete-session"
            aria-label={`Delete session ${label}`}
            title="Delete session"
            onClick={() => setAsking(true)}
          >
            <TrashIcon />
          </button>
        </>
      )}
    </li>
  );
}

/** A bin, drawn (an emoji depends on the system's fonts). */
function TrashIcon() {
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      <path
        fill="none"
        stroke="currentColor"
        stroke-width="1.4"
        stroke-linecap="round"
        d="M2.5 4h11M6 4V2.5h4V4M4 4l.8 9.5h6.4L12 4M6.8 6.5v5M9.2 6.5v5"
      />
    </svg>
  );
}
