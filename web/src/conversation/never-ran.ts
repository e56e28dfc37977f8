/**
 * Which assistant messages stand for a turn that never ran, and are left out of the
 * conversation: an input taken back from the queue (its user message says "not delivered"),
 * and an input that went into another turn (OpenCode delivers the steers waiting as a queued
 * input starts in that input's turn: the steer's own turn ends with it, never started, and its
 * user message moved to the turn that took it). Both end with no part; an empty turn that
 * failed stays, for its error.
 */
import type { AssistantMessage, Message } from "opencode-bridge/client";

/** The turns some user message is in: a turn with none and no part took no input of its own. */
export function turnsWithInput(messages: readonly Message[]): ReadonlySet<string> {
  const turns = new Set<string>();
  for (const message of messages) {
    if (message.role === "user" && message.turnId !== undefined) turns.add(message.turnId);
  }
  return turns;
}

export function neverRan(
  message: AssistantMessage,
  reason: string | undefined,
  withInput: ReadonlySet<string>,
): boolean {
  if (message.parts.length > 0 || message.outcome === undefined) return false;
  if (reason === "cancelled") return true;
  return message.error === undefined && !withInput.has(message.turnId);
}
