/**
 * "Undo" under an input: the session goes back to before it, that input and everything after
 * it set aside and their file changes undone. Asks once before doing it, naming the files that
 * go back (those this turn and the later ones changed, as far as the session said); a redo
 * (RedoBar) takes it back until the next message.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useSessionActions } from "../session-actions.js";

/** Files named in the confirmation; the rest are counted. */
const FILES_SHOWN = 12;

export function RevertOffer(props: {
  inputId: string;
  /** The files the undo puts back, when known (paths, and how many more): read on confirming. */
  filesPutBack?: () => { paths: readonly string[]; moreFiles: number };
}) {
  const actions = useSessionActions();
  const [state, setState] = useState<"offered" | "confirming" | "reverting">("offered");
  // The keyboard's place follows the question: to Cancel (the safe answer) when it opens, back
  // to Undo when it is cancelled.
  const offer = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const cancelled = useRef(false);
  useEffect(() => {
    if (state === "confirming") cancel.current?.focus();
    if (state === "offered" && cancelled.current) offer.current?.focus();
    cancelled.current = false;
  }, [state]);
  if (!actions.canRevert) return null;
  if (state === "offered") {
    return (
      <button
        ref={offer}
        type="button"
        class="link-button turn-action"
        data-testid="turn-undo"
        aria-label="Undo: revert to before this message"
        title="Revert to before this message"
        onClick={() => setState("confirming")}
      >
        Undo
      </button>
    );
  }
  const revert = async () => {
    setState("reverting");
    await actions.revert(props.inputId);
    // On success the messages are set aside (session.reverted); on failure the banner says why.
    setState("offered");
  };
  const files = props.filesPutBack?.();
  const paths = files?.paths ?? [];
  const more = (files?.moreFiles ?? 0) + Math.max(0, paths.length - FILES_SHOWN);
  return (
    <fieldset class="revert-offer confirming" aria-label="Revert the session">
      <p>
        This message and everything after it are set aside
        {paths.length === 0 ? (
          ", and their file changes undone."
        ) : (
          <>
            , and{" "}
            {paths.length + (files?.moreFiles ?? 0) === 1 ? "this file goes" : "these files go"}{" "}
            back to how they were before it:
          </>
        )}
      </p>
      {paths.length === 0 ? null : (
        <ul class="undo-files" data-testid="undo-files">
          {paths.slice(0, FILES_SHOWN).map((path) => (
            <li key={path}>{path}</li>
          ))}
          {more > 0 ? <li class="muted">and {more} more</li> : null}
        </ul>
      )}
      <p class="muted">Redo brings them back until you send the next message.</p>
      <button
        type="button"
        class="danger"
        disabled={state === "reverting"}
        onClick={() => void revert()}
      >
        {state === "reverting" ? "Undoing…" : "Undo"}
      </button>
      <button
        ref={cancel}
        type="button"
        disabled={state === "reverting"}
        onClick={() => {
          cancelled.current = true;
          setState("offered");
        }}
      >
        Cancel
      </button>
    </fieldset>
  );
}
