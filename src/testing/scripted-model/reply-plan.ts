/**
 * Decides what the scripted model answers to one chat request: a pure function
 * of the request, the directives in its last user message, and two counters
 * the server keeps (tool call ids, and how often an `[[error … times=N]]` fired).
 */
import {
  type ChatMessage,
  type ChatRequest,
  lastIndexOfRole,
  messageText,
} from "./chat-request.js";
import { type FinalDirective, parseDirectives, type Script } from "./directives.js";

/** A streamed (or, with `stream: false`, whole) assistant message. */
export interface MessageReply {
  kind: "message";
  /** Reasoning chunks, sent as `delta.reasoning_content` before anything else. */
  reasoning: string[];
  /** Text chunks; joined they are the reply text. */
  content: string[];
  /** Wait before each content chunk (only `[[slow]]` sets it). */
  delayMs: number;
  toolCall?: { id: string; name: string; argumentChunks: string[] };
  finishReason: "stop" | "tool_calls";
}

/** An HTTP error answer. */
export interface ErrorReply {
  kind: "error";
  status: number;
  body: unknown;
}

/** No answer at all. */
export interface HangReply {
  kind: "hang";
}

export type Reply = MessageReply | ErrorReply | HangReply;

/** The server-wide state a reply may consult or advance. */
export interface ReplyState {
  /** Returns the next tool call id (`call_1`, `call_2`, …). */
  nextToolCallId(): string;
  /** Counts one more `[[error … times=N]]` failure for this key and returns the new count. */
  countFailure(key: string): number;
}

/** Knobs of the server that change replies. */
export interface ReplyOptions {
  /** Replaces the `echo: …` answer to a prompt without directives. */
  defaultReply?: string | undefined;
}

/** How much of a tool result the default follow-up text quotes. */
export const toolResultPreviewChars = 200;

/**
 * Plans the answer. Throws `UsageError` (from the directive parser) when the
 * last user message holds a malformed directive.
 */
export function planReply(
  request: ChatRequest,
  state: ReplyState,
  options: ReplyOptions = {},
): Reply {
  const { messages } = request;
  const userIndex = lastIndexOfRole(messages, "user");
  const script = parseDirectives(messageText(messages[userIndex]));
  // Tool results after the user spoke say how far through the script this turn is;
  // the messages never carry any other marker we could rely on.
  const sinceUser = messages.slice(userIndex + 1);
  const toolResults = sinceUser.filter((message) => message.role === "tool");
  const split = (text: string): string[] =>
    script.chunks === undefined ? chunkText(text) : chunkCodePoints(text, script.chunks);
  const reasoning = toolResults.length === 0 ? split(script.reasoning ?? "") : [];
  // A request that offers no tools (OpenCode's title generator) cannot take a
  // tool call, so it skips straight to the final answer.
  const offersTools = (request.tools ?? []).length > 0;

  const tool = offersTools ? script.tools[toolResults.length] : undefined;
  if (tool) {
    return {
      kind: "message",
      reasoning,
      content: [],
      delayMs: 0,
      toolCall: {
        id: state.nextToolCallId(),
        name: tool.name,
        argumentChunks:
          script.chunks === undefined
            ? splitInTwo(tool.arguments)
            : chunkCodePoints(tool.arguments, script.chunks),
      },
      finishReason: "tool_calls",
    };
  }

  const final = activeFinal(script.final, failureKey(request, userIndex), state);
  switch (final?.kind) {
    case "error":
      return { kind: "error", status: final.status, body: final.body };
    case "hang":
      return { kind: "hang" };
    case "slow":
      return {
        kind: "message",
        reasoning,
        content: Array.from({ length: final.count }, (_, i) => `${i === 0 ? "" : " "}tok${i + 1}`),
        delayMs: final.delayMs,
        finishReason: "stop",
      };
    case "reply":
      return textReply(reasoning, split(final.text));
    case undefined:
      return textReply(reasoning, split(defaultText(script, messages, toolResults, options)));
  }
}

/** An `[[error … times=N]]` that has already failed N times no longer applies. */
function activeFinal(
  final: FinalDirective | undefined,
  key: string,
  state: ReplyState,
): FinalDirective | undefined {
  if (final?.kind !== "error" || final.times === undefined) return final;
  return state.countFailure(key) <= final.times ? final : undefined;
}

/** Identical requests (a client's retry) share a key; the next step of the turn does not. */
function failureKey(request: ChatRequest, userIndex: number): string {
  return JSON.stringify([
    messageText(request.messages[userIndex]),
    request.messages.length,
    (request.tools ?? []).length,
  ]);
}

function defaultText(
  script: Script,
  messages: readonly ChatMessage[],
  toolResults: readonly ChatMessage[],
  options: ReplyOptions,
): string {
  const lastResult = toolResults.at(-1);
  if (!lastResult) return options.defaultReply ?? `echo: ${script.text}`;
  const name = toolNameOf(messages, lastResult.tool_call_id) ?? "unknown";
  return `tool ${name} returned: ${messageText(lastResult).slice(0, toolResultPreviewChars)}`;
}

/** Finds the name of the tool call a `tool` message answers. */
function toolNameOf(
  messages: readonly ChatMessage[],
  callId: string | undefined,
): string | undefined {
  for (const message of messages) {
    const call = message.tool_calls?.find((candidate) => candidate.id === callId);
    if (call) return call.function.name;
  }
  return undefined;
}

function textReply(reasoning: string[], content: string[]): MessageReply {
  return { kind: "message", reasoning, content, delayMs: 0, finishReason: "stop" };
}

/** Splits text into up to `pieces` chunks at word boundaries; joined they give the text back. */
export function chunkText(text: string, pieces = 3): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? (text === "" ? [] : [text]);
  if (words.length === 0) return [];
  const size = Math.ceil(words.length / pieces);
  const chunks: string[] = [];
  for (let at = 0; at < words.length; at += size) chunks.push(words.slice(at, at + size).join(""));
  return chunks;
}

/**
 * Cuts text into `pieces` chunks of about the same number of code points (fewer when the text
 * has fewer); joined they give the text back. A surrogate pair is never cut, so each chunk is
 * well-formed UTF-16 and survives JSON.
 */
export function chunkCodePoints(text: string, pieces: number): string[] {
  const points = Array.from(text);
  const count = Math.min(pieces, points.length);
  const chunks: string[] = [];
  for (let index = 0; index < count; index++) {
    const from = Math.floor((index * points.length) / count);
    const to = Math.floor(((index + 1) * points.length) / count);
    chunks.push(points.slice(from, to).join(""));
  }
  return chunks;
}

/** Tool arguments arrive in two chunks, as real providers split them. */
function splitInTwo(text: string): string[] {
  const half = Math.floor(text.length / 2);
  return half === 0 ? [text] : [text.slice(0, half), text.slice(half)];
}
