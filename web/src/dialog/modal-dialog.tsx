/**
 * A modal dialog on the native `<dialog>` (`showModal()`: the rest of the page is inert, so
 * neither a click nor a screen reader reaches it). Tab and Shift+Tab wrap inside it, Escape
 * closes it, and the keyboard goes back to what had it before it opened (a button, or the body
 * when a shortcut opened it), so closing never strands focus at the top of the page.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

const FOCUSABLE =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function ModalDialog(props: {
  /** The heading's text, also the dialog's accessible name. */
  title: string;
  testId: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { onClose } = props;
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    element.showModal();
    return () => {
      if (element.open) element.close();
      // After the dialog left the DOM: the browser's own restore may have nothing to go to.
      opener?.focus();
    };
  }, []);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape") {
      // Ours alone: a panel beneath (the review panel) closes on Escape from the document too.
      event.preventDefault();
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== "Tab" || dialog.current === null) return;
    const stops = [...dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = stops[0];
    const last = stops[stops.length - 1];
    if (first === undefined || last === undefined) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };
  const titleId = `${props.testId}-title`;
  return (
    <dialog
      ref={dialog}
      class="modal-dialog"
      data-testid={props.testId}
      aria-labelledby={titleId}
      onKeyDown={onKeyDown}
      // The browser's own Escape path (a `cancel` without our keydown) closes through the app.
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      // A click on the backdrop lands on the dialog element itself (its content fills it).
      onClick={(event) => event.target === dialog.current && onClose()}
    >
      <div class="modal-inner">
        <div class="modal-head">
          <h2 id={titleId}>{props.title}</h2>
          <button
            type="button"
            class="modal-close"
            data-testid={`${props.testId}-close`}
            aria-label="Close"
            onClick={onClose}
          >
            ×
          </button>
        </div>
        {props.children}
      </div>
    </dialog>
  );
}
