/**
 * A project of the side list: its directory's name (the whole path as tooltip), folded or not;
 * its sessions, a page at a time ("Show more"); a new session there when clients may make one.
 */
import type { LiveConversation, SessionInfo } from "opencode-bridge/client";
import { projectName, shownSessions } from "./project-order.js";
import type { ProjectGroup } from "./session-groups.js";
import { SessionItem } from "./session-item.js";

export interface ProjectGroupProps {
  group: ProjectGroup;
  /** Only these are drawn (the search's matches); undefined: all. */
  matching: ((session: SessionInfo) => boolean) | undefined;
  openId: string | undefined;
  live: LiveConversation | undefined;
  /** Sessions whose turn ended unseen (status/away-alerts.ts). */
  finished: ReadonlySet<string>;
  onOpen: (sessionId: string) => void;
  onDelete: (sessionId: string) => Promise<void>;
  onToggle: () => void;
  onShowMore: () => void;
  /** Makes a new session in this project and opens it. */
  onNew: () => void;
  /** A new session is being created (the button waits). */
  creating: boolean;
}

export function ProjectGroupView(props: ProjectGroupProps) {
  const { group, matching } = props;
  const { project } = group;
  const name = projectName(project.directory);
  const sessions = shownSessions(group.sessions ?? []).filter(
    (session) => matching === undefined || matching(session),
  );
  const listId = `project-${encodeURIComponent(project.directory)}`;
  return (
    <section
      class="project"
      data-testid="project-group"
      data-directory={project.directory}
      aria-label={`Project ${name}`}
    >
      <div class="project-head">
        <button
          type="button"
          class="project-toggle"
          data-testid="project-toggle"
          aria-expanded={group.unfolded}
          aria-controls={listId}
          title={project.directory}
          onClick={props.onToggle}
        >
          <span class="project-caret" aria-hidden="true">
            {group.unfolded ? "▾" : "▸"}
          </span>
          <span class="project-name" data-testid="project-name">
            {name}
          </span>
          {project.default ? <span class="badge">default</span> : null}
        </button>
        {project.allowed ? (
          <button
            type="button"
            class="project-new"
            data-testid="project-new-session"
            aria-label={`New session in ${name}`}
            title={`New session in ${project.directory}`}
            disabled={props.creating}
            aria-busy={props.creating}
            onClick={props.onNew}
          >
            +
          </button>
        ) : null}
      </div>
      {group.unfolded ? (
        <>
          {group.sessions === undefined ? <p class="muted project-note">Loading…</p> : null}
          {group.sessions !== undefined && sessions.length === 0 && matching === undefined ? (
            <p class="muted project-note">No sessions yet.</p>
          ) : null}
          <ul id={listId} class="project-sessions">
            {sessions.map((session) => (
              <SessionItem
                key={session.id}
                session={session}
                open={session.id === props.openId}
                live={props.live}
                finished={props.finished.has(session.id)}
                onOpen={props.onOpen}
                onDelete={props.onDelete}
              />
            ))}
          </ul>
          {group.more ? (
            <button
              type="button"
              class="show-more"
              data-testid="show-more"
              aria-label={`Show more sessions of ${name}`}
              onClick={props.onShowMore}
            >
              Show more
            </button>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
