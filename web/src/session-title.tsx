/** The open session's title, renamed in place: Enter saves, Escape cancels. */
import { useEffect, useRef, useState } from "preact/hooks";

export function SessionTitle(props: { title: string; onRename: (title: string) => void }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(props.title);
  const input = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // Set when Enter or Escape ends the edit: focus goes back to the button then (keyboard users
  // carry on from where they were), not when a click elsewhere ended it.
  const refocus = useRef(false);
  useEffect(() => {
    if (editing) input.current?.select();
    else if (refocus.current) button.current?.focus();
    refocus.current = false;
  }, [editing]);
  if (editing) {
    return (
      <input
        ref={input}
        class="rename-input"
        data-testid="rename-input"
        aria-label="Session title"
        value={value}
        onInput={(event) => setValue(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            refocus.current = true;
            const title = value.trim();
            setEditing(false);
            if (title !== "" && title !== props.title) props.onRename(title);
          } else if (event.key === "Escape") {
            event.preventDefault();
            refocus.current = true;
            setEditing(false);
          }
        }}
        onBlur={() => setEditing(false)}
      />
    );
  }
  return (
    <div class="session-heading">
      <h1 data-testid="session-title">{props.title}</h1>
      <button
        ref={button}
        type="button"
        data-testid="rename-session"
        aria-label="Rename session"
        onClick={() => {
          setValue(props.title);
          setEditing(true);
        }}
      >
        ✎
      </button>
    </div>
  );
}
