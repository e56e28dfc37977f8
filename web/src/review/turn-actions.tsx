/**
 * Under an input: what its turn changed (opens the review panel on that turn), Undo (revert to
 * before it, confirmed with the files that go back) and Fork (continue from before it in a new
 * session). Each only where the session can and the input allows (undoable-inputs.ts).
 */
import type { UserMessage } from "opencode-bridge/client";
import { useEffect, useState } from "preact/hooks";
import { RevertOffer } from "../conversation/revert-offer.js";
import { useTurnReview } from "./review-context.js";
import { filesPutBackBy } from "./turn-changes.js";
import { warmReviewPanel } from "./warm-review-panel.js";

export function TurnActions(props: { message: UserMessage }) {
  const review = useTurnReview();
  const { message } = props;
  const turn =
    review === undefined || message.turnId === undefined
      ? undefined
      : review.turnChanges[message.turnId];
  const changed = turn === undefined ? 0 : turn.files.length + (turn.moreFiles ?? 0);
  const reviewable = review?.canReview === true && changed > 0;
  useEffect(() => {
    if (reviewable) warmReviewPanel();
  }, [reviewable]);
  if (review === undefined) return null;
  const undoable = review.undoable.has(message.inputId);
  if (!reviewable && !undoable) return null;
  const files = changed === 1 ? "1 file" : `${changed} files`;
  return (
    <div class="turn-actions" data-testid="turn-actions">
      {reviewable ? (
        <button
          type="button"
          class="link-button turn-action"
          data-testid="turn-changes"
          // The visible text starts the name: a voice user says what they see.
          aria-label={`Changes · ${files} in this turn`}
          onClick={() => review.openChanges(message.turnId)}
        >
          Changes · {files}
        </button>
      ) : null}
      {undoable ? (
        <RevertOffer
          inputId={message.inputId}
          filesPutBack={() => filesPutBackBy(review.messages, review.turnChanges, message.inputId)}
        />
      ) : null}
      {undoable && review.canFork ? <ForkButton inputId={message.inputId} /> : null}
    </div>
  );
}

function ForkButton(props: { inputId: string }) {
  const review = useTurnReview();
  const [forking, setForking] = useState(false);
  if (review === undefined) return null;
  const fork = async () => {
    setForking(true);
    try {
      await review.fork(props.inputId);
    } finally {
      setForking(false);
    }
  };
  return (
    <button
      type="button"
      class="link-button turn-action"
      data-testid="turn-fork"
      aria-label="Fork: continue in a new session from before this message"
      title="Continue in a new session from before this message (it and what followed are left out)"
      disabled={forking}
      onClick={() => void fork()}
    >
      {forking ? "Forking…" : "Fork"}
    </button>
  );
}
