/** The open session's title, renamed in place: Enter saves, Escape cancels. */
import { useEffect, useRef, useState } from "preact/hooks";

export function SessionHeader(props: { title: string; onRename: (title: string) => void }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(props.title);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (editing) input.current?.select();
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
            const title = value.trim();
            setEditing(false);
            if (title !== "" && title !== props.title) props.onRename(title);
          } else if (event.key === "Escape") {
            event.preventDefault();
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
