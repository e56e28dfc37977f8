/**
 * "Revert to before this message", under an input whose turn failed: the way out of a session
 * where every turn fails because of something an earlier message carried (a file the model
 * cannot take). Asks once before doing it: file changes go back too; a redo (RedoBar) takes it
 * back until the next message.
 */
import { useState } from "preact/hooks";
import { useSessionActions } from "../session-actions.js";

export function RevertOffer(props: { inputId: string }) {
  const actions = useSessionActions();
  const [state, setState] = useState<"offered" | "confirming" | "reverting">("offered");
  if (!actions.canRevert) return null;
  if (state === "offered") {
    return (
      <p class="revert-offer">
        <button type="button" class="link-button" onClick={() => setState("confirming")}>
          Revert to before this message
        </button>
      </p>
    );
  }
  const revert = async () => {
    setState("reverting");
    await actions.revert(props.inputId);
    // On success the messages are set aside (session.reverted); on failure the banner says why.
    setState("offered");
  };
  return (
    <fieldset class="revert-offer confirming" aria-label="Revert the session">
      <p>
        This message and everything after it are set aside, and their file changes undone. Redo
        brings them back until you send the next message.
      </p>
      <button
        type="button"
        class="danger"
        disabled={state === "reverting"}
        onClick={() => void revert()}
      >
        {state === "reverting" ? "Reverting…" : "Revert"}
      </button>
      <button type="button" disabled={state === "reverting"} onClick={() => setState("offered")}>
        Cancel
      </button>
    </fieldset>
  );
}
