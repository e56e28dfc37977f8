/**
 * The review panel (loaded on demand, see review-drawer.tsx): the files the session, or one
 * of its turns, changed, each with its status, line counts and diff; then the working tree's
 * status. Over the conversation's right side on a wide screen, a full-screen sheet on a
 * phone. Escape and the close button close it.
 */
import type { BridgeClient } from "opencode-bridge/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { ChangedFile } from "./changed-file.js";
import { useNarrowScreen } from "./use-narrow-screen.js";
import { useReviewData } from "./use-review-data.js";
import { WorkingTree } from "./working-tree.js";

export interface ReviewPanelProps {
  client: BridgeClient;
  sessionId: string;
  /** The turn shown; undefined for the whole session. */
  turnId: string | undefined;
  /** The turn the panel was opened on (to switch back to it), with the words naming it. */
  openedOn: { turnId: string; label: string } | undefined;
  /** Anything whose change means the files may have changed (read again then). */
  changedWhen: readonly unknown[];
  onScope: (turnId: string | undefined) => void;
  onClose: () => void;
}

export function ReviewPanel(props: ReviewPanelProps) {
  const { client, sessionId, turnId, openedOn, onClose } = props;
  const data = useReviewData(client, sessionId, turnId, props.changedWhen);
  const heading = useRef<HTMLHeadingElement>(null);
  const [split, setSplit] = useState(false);
  // Side by side needs the width: a phone shows a diff unified, whatever was chosen.
  const narrow = useNarrowScreen();
  const layout = split && !narrow ? "split" : "unified";
  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    const close = (event: KeyboardEvent) => event.key === "Escape" && onClose();
    document.addEventListener("keydown", close);
    return () => document.removeEventListener("keydown", close);
  }, [onClose]);
  const { changes } = data;
  return (
    <div
      class="side-panel review-panel"
      role="dialog"
      aria-labelledby="review-heading"
      data-testid="review-panel"
    >
      <header class="review-head">
        <h2 id="review-heading" ref={heading} tabIndex={-1}>
          Changes
        </h2>
        {openedOn === undefined ? null : (
          <fieldset class="review-scope" aria-label="Which changes">
            <button
              type="button"
              data-testid="review-scope-turn"
              aria-pressed={turnId !== undefined}
              onClick={() => props.onScope(openedOn.turnId)}
            >
              This turn
            </button>
            <button
              type="button"
              data-testid="review-scope-session"
              aria-pressed={turnId === undefined}
              onClick={() => props.onScope(undefined)}
            >
              Whole session
            </button>
          </fieldset>
        )}
        {narrow ? null : (
          <button
            type="button"
            class="diff-layout"
            data-testid="review-split"
            aria-pressed={split}
            aria-label="Side by side"
            title="Show each diff side by side (before, after)"
            onClick={() => setSplit(!split)}
          >
            Side by side
          </button>
        )}
        <button
          type="button"
          class="review-close"
          data-testid="review-close"
          aria-label="Close the changes"
          onClick={onClose}
        >
          ×
        </button>
      </header>
      <div class="review-body">
        <p class="muted review-scope-note" data-testid="review-scope-note">
          {turnId === undefined
            ? "What the session's turns changed (an undone turn left out)."
            : `What one turn changed: ${openedOn?.turnId === turnId ? openedOn.label : "this turn"}.`}
        </p>
        {data.error === undefined ? null : (
          <p class="problem" role="alert">
            The changes could not be read: {data.error}{" "}
            <button type="button" onClick={data.reload}>
              Try again
            </button>
          </p>
        )}
        {changes === undefined ? (
          data.error === undefined ? (
            <p class="muted" role="status">
              Loading the changes…
            </p>
          ) : null
        ) : changes.files.length === 0 ? (
          <p class="muted" data-testid="review-empty">
            No files changed.
          </p>
        ) : (
          <ul class="changed-files" aria-label="Changed files" aria-busy={data.loading}>
            {changes.files.map((file) => (
              <ChangedFile key={file.path} file={file} layout={layout} />
            ))}
            {changes.moreFiles === undefined || changes.moreFiles === 0 ? null : (
              <li class="muted">and {changes.moreFiles} more files, not listed</li>
            )}
          </ul>
        )}
        <WorkingTree vcs={data.vcs} />
      </div>
    </div>
  );
}
