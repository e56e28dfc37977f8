/**
 * Updates of a conversation's messages that copy only what changes (the path from the array
 * to the changed part) and share the rest, so that folding an event never mutates its input.
 * An update that finds nothing to change returns the array it was given.
 */
import type { AssistantMessage, Message, Part, UserMessage } from "./conversation-types.js";

/** Where the input's message sits, the newest first. */
export function findUser(messages: readonly Message[], inputId: string): number | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === "user" && message.inputId === inputId) return index;
  }
  return undefined;
}

/** Replaces the input's message; an input never admitted changes nothing. */
export function updateUser(
  messages: Message[],
  inputId: string,
  update: (user: UserMessage) => UserMessage,
): Message[] {
  const index = findUser(messages, inputId);
  const user = index === undefined ? undefined : messages[index];
  if (index === undefined || user?.role !== "user") return messages;
  return messages.with(index, update(user));
}

/**
 * The turn that took an input, from its delivery: it overrides the turn promised at admission
 * (a steer admitted between turns is promised one of its own, and OpenCode may deliver it into
 * the next queued input's turn instead: then that is the turn it joined).
 */
export function deliverTo(messages: Message[], inputId: string, turnId: string): Message[] {
  return updateUser(messages, inputId, (user) =>
    user.turnId === turnId && user.delivered ? user : { ...user, turnId, delivered: true },
  );
}

/** Records the turn an input started or joined (the first one it was seen with). */
export function joinTurn(messages: Message[], inputId: string, turnId: string): Message[] {
  return updateUser(messages, inputId, (user) =>
    user.turnId === undefined ? { ...user, turnId } : user,
  );
}

/**
 * Updates the turn's (latest) message, starting it when this is the first the turn is heard
 * of. A steer delivered into the running turn starts the turn a message of its own, right after
 * the steer's: what the model does next answers it, and is drawn after it.
 */
export function updateAssistant(
  messages: Message[],
  turnId: string | undefined,
  update: (assistant: AssistantMessage) => AssistantMessage,
): Message[] {
  if (turnId === undefined) return messages;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === "user" && message.turnId === turnId && message.delivered) {
      if (!hasAssistantBefore(messages, index, turnId)) continue; // the input that started it
      return messages.toSpliced(index + 1, 0, update({ role: "assistant", turnId, parts: [] }));
    }
    if (message?.role !== "assistant" || message.turnId !== turnId) continue;
    const updated = update(message);
    return updated === message ? messages : messages.with(index, updated);
  }
  return [...messages, update({ role: "assistant", turnId, parts: [] })];
}

function hasAssistantBefore(messages: readonly Message[], end: number, turnId: string): boolean {
  return messages.slice(0, end).some((m) => m.role === "assistant" && m.turnId === turnId);
}

/** Where the part `is` picks sits, the newest message first. */
export function findPart(
  messages: readonly Message[],
  is: (part: Part) => boolean,
): { message: number; part: number } | undefined {
  for (let message = messages.length - 1; message >= 0; message--) {
    const candidate = messages[message];
    if (candidate?.role !== "assistant") continue;
    const part = candidate.parts.findIndex(is);
    if (part >= 0) return { message, part };
  }
  return undefined;
}

/** Replaces the part `is` picks; an update for a part never seen changes nothing. */
export function updatePart<P extends Part>(
  messages: Message[],
  is: (part: Part) => part is P,
  update: (part: P) => P,
): Message[] {
  const found = findPart(messages, is);
  if (found === undefined) return messages;
  const message = messages[found.message];
  const part = message?.role === "assistant" ? message.parts[found.part] : undefined;
  if (message?.role !== "assistant" || part === undefined || !is(part)) return messages;
  const parts = message.parts.with(found.part, update(part));
  return messages.with(found.message, { ...message, parts });
}

/** Replaces the part `is` picks, or adds a new one at the end of the turn's message. */
export function upsertPart<P extends Part>(
  messages: Message[],
  turnId: string | undefined,
  is: (part: Part) => part is P,
  update: (part: P | undefined) => P,
): Message[] {
  if (findPart(messages, is) !== undefined) return updatePart(messages, is, update);
  return updateAssistant(messages, turnId, (assistant) => ({
    ...assistant,
    parts: [...assistant.parts, update(undefined)],
  }));
}
