/**
 * The sidebar: a new session, a search over the sessions shown, the sessions grouped by
 * project (each a page at a time), and the import of the user's own OpenCode sessions.
 */
import type { BridgeClient, LiveConversation } from "opencode-bridge/client";
import { useState } from "preact/hooks";
import { sessionLabel } from "./session-label.js";
import { ImportList } from "./side/import-list.js";
import { ProjectGroupView } from "./side/project-group.js";
import type { SessionGroups } from "./side/session-groups.js";

export interface SessionListProps {
  client: BridgeClient;
  sessions: SessionGroups;
  openId: string | undefined;
  /** The open session's live state: its badges without waiting for the next poll. */
  live: LiveConversation | undefined;
  /** Sessions whose turn ended while another was open, not opened since (status/away-alerts.ts). */
  finished: ReadonlySet<string>;
  onOpen: (sessionId: string) => void;
  /** Makes a new session in `directory` (default: the sidecar's) and opens it. */
  onNew: (directory?: string) => void;
  /** A new session is being created (the buttons wait). */
  creating: boolean;
  onDelete: (sessionId: string) => Promise<void>;
}

export function SessionList(props: SessionListProps) {
  const { groups } = props.sessions;
  const [query, setQuery] = useState("");
  const wanted = query.trim().toLowerCase();
  const matching =
    wanted === ""
      ? undefined
      : (session: { title?: string | undefined }) =>
          sessionLabel(session.title).toLowerCase().includes(wanted);
  const older = groups?.some((group) => group.more || !group.unfolded) === true;
  return (
    <nav class="sessions" aria-label="Sessions">
      <button
        type="button"
        class="new-session"
        data-testid="new-session"
        disabled={props.creating}
        aria-busy={props.creating}
        onClick={() => props.onNew()}
      >
        {props.creating ? "Creating session…" : "+ New session"}
      </button>
      <input
        type="search"
        class="session-search"
        data-testid="session-search"
        aria-label="Search sessions by title"
        placeholder="Search sessions"
        value={query}
        onInput={(event) => setQuery(event.currentTarget.value)}
        onKeyDown={(event) => event.key === "Escape" && query !== "" && setQuery("")}
      />
      {wanted !== "" && older ? (
        <p class="muted project-note">
          Searching the sessions shown: unfold or show more for older ones.
        </p>
      ) : null}
      <div data-testid="session-list">
        {groups === undefined ? <p class="muted">Loading sessions…</p> : null}
        {groups?.map((group) => {
          const { directory } = group.project;
          // While searching, a project without a match is left out.
          if (matching !== undefined && !(group.sessions ?? []).some(matching)) return null;
          return (
            <ProjectGroupView
              key={directory}
              group={group}
              matching={matching}
              openId={props.openId}
              live={props.live}
              finished={props.finished}
              onOpen={props.onOpen}
              onDelete={props.onDelete}
              onToggle={() => props.sessions.toggle(directory)}
              onShowMore={() => props.sessions.showMore(directory)}
              creating={props.creating}
              onNew={() => props.onNew(directory)}
            />
          );
        })}
      </div>
      <ImportList client={props.client} onImported={props.onOpen} />
    </nav>
  );
}
