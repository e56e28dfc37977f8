/**
 * Above a session's conversation: where a fork comes from (its own durable `session.forked`,
 * folded into `conversation.forkedFrom`, so a reload and another tab show it), and the forks
 * made from this session that the sidecar has open (their `forkedFrom`, known while they are
 * open: a fork kept in the store only is not listed here).
 */
import type { ForkedFrom, SessionInfo } from "opencode-bridge/client";

export function SessionLineage(props: {
  sessionId: string;
  forkedFrom: ForkedFrom | undefined;
  sessions: readonly SessionInfo[] | undefined;
  onOpen: (sessionId: string) => void;
}) {
  const { forkedFrom, sessions } = props;
  const origin =
    forkedFrom === undefined ? undefined : sessions?.find((s) => s.id === forkedFrom.sessionId);
  const forks = (sessions ?? []).filter((s) => s.forkedFrom?.sessionId === props.sessionId);
  if (forkedFrom === undefined && forks.length === 0) return null;
  return (
    <nav class="session-lineage" data-testid="session-lineage" aria-label="Forks">
      {forkedFrom === undefined ? null : (
        <p data-testid="forked-from">
          Forked from{" "}
          <a
            href={`#${new URLSearchParams({ session: forkedFrom.sessionId }).toString()}`}
            data-testid="forked-from-link"
            onClick={(event) => {
              event.preventDefault();
              props.onOpen(forkedFrom.sessionId);
            }}
          >
            {origin?.title ?? forkedFrom.sessionId}
          </a>{" "}
          <span class="muted">(its history up to the message this fork left out)</span>
        </p>
      )}
      {forks.length === 0 ? null : (
        <p data-testid="forks">
          Forks of this session:{" "}
          {forks.map((fork, index) => (
            <span key={fork.id}>
              {index === 0 ? "" : ", "}
              <a
                href={`#${new URLSearchParams({ session: fork.id }).toString()}`}
                data-testid="fork-link"
                onClick={(event) => {
                  event.preventDefault();
                  props.onOpen(fork.id);
                }}
              >
                {fork.title ?? fork.id}
              </a>
            </span>
          ))}
        </p>
      )}
    </nav>
  );
}
