/**
 * A session's transcript as a conversation: the user's inputs and, per turn, one assistant
 * message with its parts in the order they began. A pure reducer over the durable canonical
 * events, so that a conversation saved at some seq and fed the events after it equals one
 * built from the start. Plain objects and arrays only: it survives `JSON.stringify`.
 */
import { UsageError } from "../errors.js";
import { assertNever, type CanonicalEvent } from "../events/canonical.js";
import type {
  Compacted,
  Conversation,
  Message,
  Part,
  PermissionPart,
  QuestionPart,
  ReasoningPart,
  SubagentPart,
  TextPart,
  ToolPart,
  Undone,
  UserMessage,
} from "./conversation-types.js";
import {
  deliverTo,
  findUser,
  joinTurn,
  updateAssistant,
  updatePart,
  updateUser,
  upsertPart,
} from "./message-updates.js";

export type * from "./conversation-types.js";

export function emptyConversation(sessionId: string): Conversation {
  return { sessionId, messages: [], lastSeq: 0 };
}

/**
 * The conversation of `events` (one session's, in seq order). The session id is the first
 * event's unless given.
 */
export function conversationOf(
  events: readonly CanonicalEvent[],
  sessionId: string | undefined = events[0]?.sessionId,
): Conversation {
  if (sessionId === undefined) {
    throw new UsageError("conversationOf: no events to take the session id from; pass it");
  }
  return events.reduce(reduceConversation, emptyConversation(sessionId));
}

/**
 * `conversation` with `event` folded in. Never mutates either; returns `conversation` itself
 * when nothing changes (ephemeral events, other sessions' events).
 */
export function reduceConversation(
  conversation: Conversation,
  event: CanonicalEvent,
): Conversation {
  if (!event.durable || event.sessionId !== conversation.sessionId) return conversation;
  const history = foldUndo(conversation, event);
  const messages = foldMessages(history.messages, event);
  const lastSeq = Math.max(conversation.lastSeq, event.seq ?? 0);
  const { undone } = history;
  const lineage = foldLineage(conversation, event);
  const compacted = compactedBy(conversation.compacted, messages, event);
  if (
    messages === conversation.messages &&
    undone === conversation.undone &&
    compacted === conversation.compacted &&
    lastSeq === conversation.lastSeq &&
    lineage === conversation
  ) {
    return conversation;
  }
  const { forkedFrom, rehydrations, imported } = lineage;
  return {
    sessionId: conversation.sessionId,
    messages,
    lastSeq,
    ...(undone === undefined ? {} : { undone }),
    ...(forkedFrom === undefined ? {} : { forkedFrom }),
    ...(rehydrations === undefined ? {} : { rehydrations }),
    ...(imported === undefined ? {} : { imported }),
    ...(compacted === undefined ? {} : { compacted }),
  };
}

/** A compaction summarises every message so far; an undo past that point takes it back too. */
function compactedBy(
  compacted: Compacted | undefined,
  messages: readonly Message[],
  event: CanonicalEvent,
): Compacted | undefined {
  if (event.type === "session.compacted" || event.type === "compaction.ended") {
    return { messageCount: messages.length };
  }
  if (compacted !== undefined && messages.length < compacted.messageCount) {
    return messages.length === 0 ? undefined : { messageCount: messages.length };
  }
  return compacted;
}

/**
 * Where the session comes from: the origin of a fork (`session.forked`), and each continuation
 * in a new OpenCode session (`session.rehydrated`), placed after the messages before it, and the
 * OpenCode session an import took its history from (`session.imported`). `conversation` itself
 * when the event says none of these.
 */
function foldLineage(
  conversation: Conversation,
  event: CanonicalEvent,
): Pick<Conversation, "forkedFrom" | "rehydrations" | "imported"> {
  switch (event.type) {
    case "session.imported":
      return {
        ...conversation,
        imported: {
          upstreamId: event.data.upstreamId,
          afterMessages: conversation.messages.length,
        },
      };
    case "session.forked":
      return { ...conversation, forkedFrom: event.data.from };
    case "session.rehydrated": {
      const { previousUpstreamId, upstreamId } = event.data;
      const rehydration = {
        previousUpstreamId,
        upstreamId,
        afterMessages: conversation.messages.length,
      };
      return { ...conversation, rehydrations: [...(conversation.rehydrations ?? []), rehydration] };
    }
    default:
      return conversation;
  }
}

/**
 * Undo and redo: `session.reverted` moves the messages from its input on (those an earlier undo
 * took out included: OpenCode can move the point either way) to `undone`; `session.unreverted`
 * brings them back; a new input makes the undo final.
 */
function foldUndo(
  conversation: Conversation,
  event: CanonicalEvent,
): { messages: Message[]; undone: Undone | undefined } {
  const { messages, undone } = conversation;
  switch (event.type) {
    case "session.reverted": {
      const all = undone === undefined ? messages : [...messages, ...undone.messages];
      const index = findUser(all, event.data.inputId);
      if (index === undefined) return { messages, undone };
      const { inputId, files = [], moreFiles } = event.data;
      return {
        messages: all.slice(0, index),
        undone: {
          inputId,
          messages: all.slice(index),
          files,
          ...(moreFiles === undefined ? {} : { moreFiles }),
        },
      };
    }
    case "session.unreverted":
      return undone === undefined
        ? { messages, undone }
        : { messages: [...messages, ...undone.messages], undone: undefined };
    case "input.admitted":
      return undone === undefined || findUser(undone.messages, event.data.inputId) !== undefined
        ? { messages, undone }
        : { messages, undone: undefined };
    default:
      return { messages, undone };
  }
}

function foldMessages(messages: Message[], event: CanonicalEvent): Message[] {
  const turnId = event.turnId;
  switch (event.type) {
    case "input.admitted": {
      if (findUser(messages, event.data.inputId) !== undefined) return messages;
      const { inputId, text, files } = event.data;
      const user: UserMessage = {
        role: "user",
        inputId,
        ...(turnId === undefined ? {} : { turnId }),
        text,
        ...(files === undefined ? {} : { files }),
      };
      return [...messages, user];
    }
    case "input.delivered":
      return turnId === undefined ? messages : deliverTo(messages, event.data.inputId, turnId);
    case "input.cancelled":
      return updateUser(messages, event.data.inputId, (user) => ({
        ...user,
        cancelled: event.data.reason,
      }));
    case "turn.started": {
      if (turnId === undefined) return messages;
      const inputId = event.data.inputId;
      const joined = inputId === undefined ? messages : joinTurn(messages, inputId, turnId);
      return updateAssistant(joined, turnId, (assistant) => assistant);
    }
    case "turn.ended": {
      const { outcome, usage, error } = event.data;
      return updateAssistant(messages, turnId, (assistant) => ({
        ...assistant,
        outcome,
        ...(usage === undefined ? {} : { usage }),
        ...(error === undefined ? {} : { error }),
      }));
    }
    case "step.started":
    case "step.ended":
    case "step.failed":
      return updateAssistant(messages, turnId, (assistant) => assistant);
    case "text.started":
    case "text.ended": {
      const { partId } = event.data;
      const text = event.type === "text.ended" ? event.data.text : undefined;
      return upsertPart(messages, turnId, isText(partId), (part) =>
        withText(part ?? { type: "text", partId, text: "" }, text),
      );
    }
    case "reasoning.started":
    case "reasoning.ended": {
      const { partId } = event.data;
      const text = event.type === "reasoning.ended" ? event.data.text : undefined;
      return upsertPart(messages, turnId, isReasoning(partId), (part) =>
        withText(part ?? { type: "reasoning", partId, text: "" }, text),
      );
    }
    case "tool.input.started":
    case "tool.called": {
      const { callId, tool } = event.data;
      const input = event.type === "tool.called" ? event.data.input : undefined;
      return upsertPart(messages, turnId, isTool(callId), (part) => ({
        ...(part ?? { type: "tool", callId, tool, input: {}, state: "running" }),
        tool,
        ...(input === undefined ? {} : { input }),
      }));
    }
    case "tool.succeeded": {
      const { output, title } = event.data;
      return updatePart(messages, isTool(event.data.callId), (part) => ({
        ...part,
        state: "succeeded",
        output,
        ...(title === undefined ? {} : { title }),
      }));
    }
    case "tool.failed":
      return updatePart(messages, isTool(event.data.callId), (part) => ({
        ...part,
        state: "failed",
        error: event.data.error,
      }));
    case "permission.asked":
      return upsertPart(
        messages,
        turnId,
        isPermission(event.data.requestId),
        (part) => part ?? { type: "permission", ...event.data },
      );
    case "permission.replied":
      return updatePart(messages, isPermission(event.data.requestId), (part) => ({
        ...part,
        reply: event.data.reply,
      }));
    case "question.asked":
      return upsertPart(
        messages,
        turnId,
        isQuestion(event.data.requestId),
        (part) => part ?? { type: "question", state: "asked", ...event.data },
      );
    case "question.replied": {
      const { answers } = event.data;
      return updatePart(messages, isQuestion(event.data.requestId), (part) => ({
        ...part,
        state: "replied",
        ...(answers === undefined ? {} : { answers }),
      }));
    }
    case "question.rejected":
      return updatePart(messages, isQuestion(event.data.requestId), (part) => ({
        ...part,
        state: "rejected",
      }));
    case "subagent.started":
      return upsertPart(
        messages,
        turnId,
        isSubagent(event.data.callId),
        (part) => part ?? { type: "subagent", state: "running", ...event.data },
      );
    case "subagent.ended": {
      const { result } = event.data;
      return updatePart(messages, isSubagent(event.data.callId), (part) => ({
        ...part,
        state: "ended",
        ...(result === undefined ? {} : { result }),
      }));
    }
    // Undo and redo: foldUndo; forks, continuations and imports: foldLineage.
    case "session.reverted":
    case "session.unreverted":
    case "session.forked":
    case "session.rehydrated":
    case "session.imported":
      return messages;
    // The transcript keeps these; the conversation has no place for them.
    case "tool.input.ended":
    case "session.created":
    case "session.updated":
    case "session.error":
    case "file.edited":
    case "model.switched":
    case "agent.switched":
    case "files.changed":
    case "todo.updated":
    case "retry":
    case "compaction.started":
    case "compaction.ended":
    case "session.compacted":
    case "native.unknown":
      return messages;
    // Ephemeral: filtered out before the switch.
    case "text.delta":
    case "reasoning.delta":
    case "tool.input.delta":
    case "tool.progress":
    case "usage.updated":
    case "connection.changed":
      return messages;
    default:
      return assertNever(event);
  }
}

/** The whole text arrives with the part's end; its start has none yet. */
function withText<P extends TextPart | ReasoningPart>(part: P, text: string | undefined): P {
  return text === undefined ? part : { ...part, text };
}

function isText(partId: string) {
  return (part: Part): part is TextPart => part.type === "text" && part.partId === partId;
}

function isReasoning(partId: string) {
  return (part: Part): part is ReasoningPart => part.type === "reasoning" && part.partId === partId;
}

function isTool(callId: string) {
  return (part: Part): part is ToolPart => part.type === "tool" && part.callId === callId;
}

function isPermission(requestId: string) {
  return (part: Part): part is PermissionPart =>
    part.type === "permission" && part.requestId === requestId;
}

function isQuestion(requestId: string) {
  return (part: Part): part is QuestionPart =>
    part.type === "question" && part.requestId === requestId;
}

function isSubagent(callId: string) {
  return (part: Part): part is SubagentPart => part.type === "subagent" && part.callId === callId;
}
