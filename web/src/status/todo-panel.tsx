/**
 * The agent's todo list, folded above the composer: where the eyes are while it works, one line
 * when folded. The list is model output: shown as text, never as markup.
 */
import type { TodoItem } from "opencode-bridge/client";
import { useNarrowScreen } from "../review/use-narrow-screen.js";

const MARKS: Record<string, string> = {
  completed: "✓",
  in_progress: "▸",
  cancelled: "✕",
  pending: "○",
};

const SAID: Record<string, string> = {
  completed: "done",
  in_progress: "in progress",
  cancelled: "cancelled",
  pending: "to do",
};

export function TodoPanel(props: { todos: readonly TodoItem[] | undefined }) {
  const { todos } = props;
  // A phone has little height to spare: the list starts folded there, open on a desktop.
  const narrow = useNarrowScreen();
  if (todos === undefined || todos.length === 0) return null;
  const done = todos.filter((todo) => todo.status === "completed").length;
  const current = todos.find((todo) => todo.status === "in_progress");
  return (
    <details class="todo-panel" data-testid="todo-panel" open={!narrow}>
      <summary data-testid="todo-summary">
        <span class="todo-count">
          Todos {done}/{todos.length}
        </span>
        {current === undefined ? null : <span class="todo-current"> · {current.content}</span>}
      </summary>
      <ul class="todo-list">
        {todos.map((todo, index) => (
          <li
            // The list is rewritten whole each time: a position is its entry's identity.
            key={index}
            class={`todo todo-${todo.status}`}
            data-testid="todo-item"
            data-status={todo.status}
          >
            <span class="todo-mark" aria-hidden="true">
              {MARKS[todo.status] ?? "○"}
            </span>
            <span class="todo-text">{todo.content}</span>
            <span class="visually-hidden"> ({SAID[todo.status] ?? todo.status})</span>
          </li>
        ))}
      </ul>
    </details>
  );
}
