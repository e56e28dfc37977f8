/**
 * The keyboard shortcuts (shortcut-keys.ts) for the whole page, and the list `?` opens. The
 * chat hands in what only it can do (a new session, the drawer, the review panel); focusing
 * the composer or the session list is a matter of the DOM.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ModalDialog } from "../dialog/modal-dialog.js";
import { SHORTCUTS, shortcutOf } from "./shortcut-keys.js";

// The stylesheets' phone breakpoint: there the session list is a drawer.
const NARROW = "(max-width: 760px)";

export function Shortcuts(props: {
  newSession: () => void;
  toggleSidebar: () => void;
  /** Undefined when the open session has no review (no session, no VCS). */
  toggleReview: (() => void) | undefined;
}) {
  const [listOpen, setListOpen] = useState(false);
  // Read at the key press: the chat's callbacks are new at each render, the listener is not.
  const latest = useRef(props);
  latest.current = props;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const { newSession, toggleSidebar, toggleReview } = latest.current;
      const action = shortcutOf(event);
      if (action === undefined) return;
      if (action === "review" && toggleReview === undefined) return;
      event.preventDefault();
      if (action === "shortcuts") setListOpen(true);
      else if (action === "new-session") newSession();
      else if (action === "composer") focusTestId("composer-input");
      else if (action === "review") toggleReview?.();
      else if (matchMedia(NARROW).matches) toggleSidebar();
      // On a wide screen the list is always there: the keyboard goes to the open session's entry.
      else if (!focus(".sidebar [aria-current='true']")) focus(".sidebar button");
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  if (!listOpen) return null;
  return (
    <ModalDialog
      title="Keyboard shortcuts"
      testId="shortcut-list"
      onClose={() => setListOpen(false)}
    >
      <p class="muted">Outside a text field. Escape closes a dialog or a panel.</p>
      <dl class="shortcut-table">
        {SHORTCUTS.map((shortcut) => (
          <div key={shortcut.key} class="shortcut-row" data-testid="shortcut">
            <dt>
              <kbd>{shortcut.key}</kbd>
            </dt>
            <dd>{shortcut.does}</dd>
          </div>
        ))}
        <div class="shortcut-row">
          <dt>
            <kbd>Enter</kbd>
          </dt>
          <dd>In the composer: send (Shift+Enter: a new line)</dd>
        </div>
      </dl>
    </ModalDialog>
  );
}

function focusTestId(testId: string): void {
  focus(`[data-testid="${testId}"]`);
}

function focus(selector: string): boolean {
  const element = document.querySelector<HTMLElement>(selector);
  element?.focus();
  return element !== null;
}
