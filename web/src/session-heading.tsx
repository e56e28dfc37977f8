/** The top bar's heading: the open session's title (renamable), or the child conversation's. */
import { useEffect } from "preact/hooks";
import type { OpenTarget } from "./open-session-url.js";
import { SessionTitle } from "./session-title.js";

export function SessionHeading(props: {
  target: OpenTarget | undefined;
  title: string | undefined;
  onBack: () => void;
  onRename: (title: string) => void;
}) {
  const { target } = props;
  const shown = target === undefined ? undefined : (props.title ?? target.sessionId);
  useEffect(() => {
    document.title = shown === undefined ? "opencode-bridge chat" : `${shown} · opencode-bridge`;
  }, [shown]);
  if (target === undefined) return <h1 class="session-heading">opencode-bridge</h1>;
  if (target.parentId !== undefined) {
    return (
      <div class="session-heading">
        <button
          type="button"
          class="back"
          aria-label="Back to the parent session"
          onClick={props.onBack}
        >
          ←
        </button>
        <h1 data-testid="session-title">Subagent {target.sessionId}</h1>
      </div>
    );
  }
  return (
    <SessionTitle
      key={target.sessionId}
      title={props.title ?? target.sessionId}
      onRename={props.onRename}
    />
  );
}
