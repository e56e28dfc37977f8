/**
 * Which inputs the chat offers to undo (revert to before) and to fork from. Not the first input
 * of an OpenCode session: OpenCode cannot revert to before it (the sidecar answers 422), and a
 * fork before it would be an empty session. A session that went on in a new OpenCode session
 * (`rehydrations`) has a first input there too. Nothing is offered while a turn runs (the
 * sidecar answers 409), nor for an input that never reached the model.
 */
import type { Conversation, UserMessage } from "opencode-bridge/client";

/** The inputs of `conversation` an undo or a fork is offered for; none while `running`. */
export function undoableInputs(
  conversation: Conversation | undefined,
  running: string | undefined,
): ReadonlySet<string> {
  if (conversation === undefined || running !== undefined) return new Set();
  const { messages, rehydrations } = conversation;
  const starts = new Set((rehydrations ?? []).map((rehydration) => rehydration.afterMessages));
  const undoable = new Set<string>();
  let firstOfUpstream = true;
  messages.forEach((message, index) => {
    if (starts.has(index)) firstOfUpstream = true;
    if (message.role !== "user" || !reachedModel(message)) return;
    if (!firstOfUpstream) undoable.add(message.inputId);
    firstOfUpstream = false;
  });
  return undoable;
}

function reachedModel(message: UserMessage): boolean {
  return message.cancelled === undefined && message.turnId !== undefined;
}
