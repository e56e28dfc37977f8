/**
 * A session's todo list as the bridge passes it on: what OpenCode's `todowrite` tool wrote is
 * model output, so the list is bounded (in entries and in the length of each) wherever it
 * enters, on `todo.updated` and on `Session.todos()` alike.
 */
import type { Todo } from "./canonical.js";

/** Entries kept; the rest are left out (a plan the agent keeps is a few dozen at most). */
export const MAX_TODOS = 100;
/** Characters kept of an entry's text. */
export const MAX_TODO_CHARS = 2_000;

/** The first `MAX_TODOS` entries, each cut to `MAX_TODO_CHARS`, with OpenCode's fields only. */
export function boundedTodos(
  todos: readonly { content: string; status: string; priority: string }[],
): Todo[] {
  return todos.slice(0, MAX_TODOS).map(({ content, status, priority }) => ({
    content: content.slice(0, MAX_TODO_CHARS),
    status: status.slice(0, 40),
    priority: priority.slice(0, 40),
  }));
}
