/**
 * Where the review panel opens: its code is loaded on demand (a dynamic import) the first
 * time it is opened, so the chat's first load does not carry it. Gives the focus back to what
 * opened it when it closes.
 */
import type { ComponentType } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ReviewPanelProps } from "./review-panel.js";

export function ReviewDrawer(props: ReviewPanelProps) {
  const [Panel, setPanel] = useState<ComponentType<ReviewPanelProps> | undefined>(undefined);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  const opener = useRef<Element | null>(document.activeElement);
  useEffect(() => {
    let gone = false;
    import("./review-panel.js")
      .then((module) => !gone && setPanel(() => module.ReviewPanel))
      .catch((error: unknown) => !gone && setFailed(String(error)));
    const from = opener.current;
    return () => {
      gone = true;
      // After the panel has left the page: while it is there, a phone's sheet hides the rest.
      queueMicrotask(() => {
        if (from instanceof HTMLElement && from.isConnected) from.focus();
      });
    };
  }, []);
  if (Panel !== undefined) return <Panel {...props} />;
  return (
    <div
      class="side-panel review-panel"
      role="dialog"
      aria-label="Changes"
      data-testid="review-panel"
    >
      <header class="review-head">
        <h2>Changes</h2>
        <button
          type="button"
          class="review-close"
          aria-label="Close the changes"
          onClick={props.onClose}
        >
          ×
        </button>
      </header>
      <p class={failed === undefined ? "muted review-body" : "problem review-body"} role="status">
        {failed === undefined ? "Loading…" : `The review panel could not be loaded: ${failed}`}
      </p>
    </div>
  );
}
