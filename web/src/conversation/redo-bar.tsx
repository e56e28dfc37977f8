/**
 * After an undo (`conversation.undone`): what was set aside, the files put back, and "Redo",
 * at the end of the conversation. The next message makes the undo final and the bar goes.
 */
import type { Undone } from "opencode-bridge/client";
import { useState } from "preact/hooks";
import { useSessionActions } from "../session-actions.js";

/** Files named in the bar; the rest are counted. */
const FILES_SHOWN = 5;

export function RedoBar(props: { undone: Undone; running: boolean }) {
  const actions = useSessionActions();
  const [redoing, setRedoing] = useState(false);
  const { undone } = props;
  const inputs = undone.messages.filter((message) => message.role === "user").length;
  const fileCount = undone.files.length + (undone.moreFiles ?? 0);
  const named = undone.files.slice(0, FILES_SHOWN).map((file) => file.path);
  const redo = async () => {
    setRedoing(true);
    await actions.unrevert();
    // On success the messages come back (session.unreverted) and the bar goes.
    setRedoing(false);
  };
  return (
    <section class="redo-bar" data-testid="redo-bar" aria-label="Undone messages">
      <p class="redo-summary">
        {inputs === 1 ? "1 message" : `${inputs} messages`} undone
        {fileCount === 0
          ? "."
          : `, ${fileCount === 1 ? "1 file" : `${fileCount} files`} put back: ${named.join(", ")}${
              fileCount > named.length ? ` and ${fileCount - named.length} more` : ""
            }.`}{" "}
        <span class="muted">Your next message makes this final.</span>
      </p>
      <button
        type="button"
        disabled={redoing || props.running || !actions.canRevert}
        onClick={() => void redo()}
      >
        {redoing ? "Redoing…" : "Redo"}
      </button>
    </section>
  );
}
