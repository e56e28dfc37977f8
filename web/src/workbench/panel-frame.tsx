/**
 * The frame of a workbench panel (the terminal, the files): a dialog over the conversation's
 * right side on a wide screen, a full-screen sheet on a phone (workbench.css), with its
 * heading and close button. It gives the focus back to what opened it when it closes.
 * `closeOnEscape`: the files close on Escape; the terminal does not (Escape is the shell's:
 * vim, less), it leaves by Shift+Escape instead (terminal-keys.ts).
 */
import type { ComponentChildren, RefObject } from "preact";
import { useEffect, useRef } from "preact/hooks";

export function PanelFrame(props: {
  title: string;
  testId: string;
  closeLabel: string;
  closeOnEscape: boolean;
  onClose: () => void;
  /** The close button, for a panel that sends the focus there (leaving the terminal). */
  closeRef?: RefObject<HTMLButtonElement | null>;
  children: ComponentChildren;
}) {
  const { onClose, closeOnEscape } = props;
  const opener = useRef<Element | null>(document.activeElement);
  const headingId = `${props.testId}-heading`;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // The reader lands in the panel (the terminal takes the focus on from here once it runs).
    heading.current?.focus();
    const from = opener.current;
    return () => {
      // After the panel has left the page: while it is there, a phone's sheet hides the rest.
      queueMicrotask(() => {
        if (from instanceof HTMLElement && from.isConnected) from.focus();
      });
    };
  }, []);
  useEffect(() => {
    if (!closeOnEscape) return;
    const close = (event: KeyboardEvent) => event.key === "Escape" && onClose();
    document.addEventListener("keydown", close);
    return () => document.removeEventListener("keydown", close);
  }, [onClose, closeOnEscape]);
  return (
    <div
      class="side-panel workbench-panel"
      role="dialog"
      aria-labelledby={headingId}
      data-testid={props.testId}
    >
      <header class="workbench-head">
        <h2 id={headingId} ref={heading} tabIndex={-1}>
          {props.title}
        </h2>
        <button
          type="button"
          class="workbench-close"
          aria-label={props.closeLabel}
          ref={props.closeRef ?? null}
          onClick={onClose}
        >
          ×
        </button>
      </header>
      {props.children}
    </div>
  );
}

/** What a panel shows while its code loads, or why it could not. */
export function LoadingBody(props: { failed: string | undefined; what: string }) {
  return (
    <p
      class={props.failed === undefined ? "muted workbench-body" : "problem workbench-body"}
      role="status"
    >
      {props.failed === undefined
        ? "Loading…"
        : `The ${props.what} could not be loaded: ${props.failed}`}
    </p>
  );
}
