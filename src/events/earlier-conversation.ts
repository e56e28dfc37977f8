/**
 * The conversation so far as text for a model: what a new OpenCode session is primed with when
 * a session forks or goes on after its own was lost (`session.forked`, `session.rehydrated`),
 * and what an imported session's `/api` turns are told of its earlier ones (`session.imported`).
 * OpenCode 1.18.33 cannot copy messages into an `/api` session, so the bridge says them.
 */

import type { CanonicalEvent } from "./canonical.js";
import type { InlinedText } from "./inlined-texts.js";

/** How much of the conversation a new session is primed with (the latest part is kept). */
export const EARLIER_CONVERSATION_MAX_CHARS = 48_000;

interface Said {
  /** The user's input it is (assistant messages: the input of their turn). */
  inputId: string | undefined;
  role: "User" | "Assistant";
  text: string;
}

/**
 * The messages of `events` (one session's durable events, in order) as the model saw them: the
 * users' inputs and the assistant's texts and tool calls, without what an undo took out.
 */
export function earlierMessages(events: readonly CanonicalEvent[]): Said[] {
  let said: Said[] = [];
  let undone: Said[] = [];
  const inputOfTurn = new Map<string, string>();
  for (const event of events) {
    switch (event.type) {
      case "input.admitted":
        undone = []; // an input after an undo makes it final
        said.push({ inputId: event.data.inputId, role: "User", text: event.data.text });
        break;
      case "turn.started":
        if (event.turnId !== undefined && event.data.inputId !== undefined) {
          inputOfTurn.set(event.turnId, event.data.inputId);
        }
        break;
      case "text.ended":
        said.push(assistant(event, event.data.text));
        break;
      case "tool.called":
        said.push(assistant(event, `(ran the ${event.data.tool} tool)`));
        break;
      case "session.reverted": {
        const all = [...said, ...undone];
        const at = all.findIndex(
          (one) => one.role === "User" && one.inputId === event.data.inputId,
        );
        if (at >= 0) [said, undone] = [all.slice(0, at), all.slice(at)];
        break;
      }
      case "session.unreverted":
        [said, undone] = [[...said, ...undone], []];
        break;
      case "session.compacted":
        // The bridge's compaction: its summary stands for everything before it.
        if (event.data.summary !== undefined) {
          said = [
            {
              inputId: undefined,
              role: "Assistant",
              text: `(a summary of the conversation before) ${event.data.summary}`,
            },
          ];
          undone = [];
        }
        break;
      default:
        break;
    }
  }
  return said;

  function assistant(event: CanonicalEvent, text: string): Said {
    const inputId = event.turnId === undefined ? undefined : inputOfTurn.get(event.turnId);
    return { inputId, role: "Assistant", text };
  }
}

/**
 * The conversation of `events` as an attached text (`withInlinedTexts`), or undefined when
 * there was none. Longer than `maxChars`: its latest messages, saying how many were left out.
 */
export function earlierConversation(
  events: readonly CanonicalEvent[],
  maxChars = EARLIER_CONVERSATION_MAX_CHARS,
): InlinedText | undefined {
  const messages = earlierMessages(events).map((one) => `${one.role}: ${one.text}`);
  if (messages.length === 0) return undefined;
  const kept: string[] = [];
  let size = 0;
  for (let at = messages.length - 1; at >= 0; at--) {
    const message = messages[at] ?? "";
    if (size + message.length > maxChars) {
      if (kept.length === 0) kept.unshift(`…${message.slice(message.length - maxChars)}`);
      break;
    }
    kept.unshift(message);
    size += message.length + 2;
  }
  const left = messages.length - kept.length;
  const head =
    "The conversation so far, from before this session (you said the Assistant's part; go on from it):";
  const omitted = left === 0 ? [] : [`(${left} earlier messages left out)`];
  return {
    name: "earlier-conversation.md",
    mime: "text/markdown",
    text: [head, ...omitted, ...kept].join("\n\n"),
  };
}

/**
 * The conversation a fork, a continued or an imported session still has to tell its OpenCode
 * session (an imported one's `/api` model sees none of its legacy messages): the one before its
 * latest `session.forked`, `session.rehydrated` or `session.imported`, while no input followed
 * that (the first input carries it). Derived from the kept events, so a bridge that restarts in
 * between still says it.
 */
export function pendingEarlierConversation(
  events: readonly CanonicalEvent[],
): InlinedText | undefined {
  const at = events.findLastIndex(
    (event) =>
      event.type === "session.forked" ||
      event.type === "session.rehydrated" ||
      event.type === "session.imported",
  );
  if (at < 0) return undefined;
  if (events.slice(at + 1).some((event) => event.type === "input.admitted")) return undefined;
  return earlierConversation(events.slice(0, at));
}
