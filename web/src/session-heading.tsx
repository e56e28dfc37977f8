/** The top bar's heading: the open session's title (renamable), or the child conversation's. */
import { useEffect } from "preact/hooks";
import type { OpenTarget } from "./open-session-url.js";
import { sessionLabel } from "./session-label.js";
import { SessionTitle } from "./session-title.js";

export function SessionHeading(props: {
  target: OpenTarget | undefined;
  title: string | undefined;
  onBack: () => void;
  onRename: (title: string) => void;
}) {
  const { target } = props;
  // Never the raw id: the title, else "Untitled session" (the child's heading names its kind).
  const shown = target === undefined ? undefined : sessionLabel(props.title);
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
        <h1 data-testid="session-title">Subagent's conversation</h1>
      </div>
    );
  }
  return (
    <SessionTitle
      key={target.sessionId}
      title={sessionLabel(props.title)}
      onRename={props.onRename}
    />
  );
}
