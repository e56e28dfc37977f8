/**
 * The OpenAI wire shapes of a planned reply: the SSE stream of
 * `chat.completion.chunk`s (`data: {…}\n\n` lines ending with `data: [DONE]`)
 * and the plain `chat.completion` body for `stream: false`.
 */
import { sleep } from "../../util/abort.js";
import type { ChatMessage } from "./chat-request.js";
import type { MessageReply } from "./reply-plan.js";

/** Token counts in OpenAI's `usage` shape. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details: { reasoning_tokens: number };
}

/** Fields every chunk or completion of one response shares. */
export interface ResponseIdentity {
  /** `chatcmpl-<n>`. */
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

/** Plausible token counts: about four characters per token, as a rule of thumb. */
export function estimateUsage(messages: readonly ChatMessage[], reply: MessageReply): Usage {
  const prompt = tokens(JSON.stringify(messages.map((message) => message.content ?? "")));
  const reasoning = tokens(reply.reasoning.join(""));
  const completion =
    reasoning +
    tokens(reply.content.join("")) +
    tokens(reply.toolCall ? reply.toolCall.name + reply.toolCall.argumentChunks.join("") : "");
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Formats one SSE event carrying a JSON chunk. */
export function sseData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** The SSE line that ends an OpenAI stream. */
export const sseDone = "data: [DONE]\n\n";

/**
 * Writes a reply as OpenAI stream chunks through `write`: role, reasoning,
 * content (waiting `delayMs` before each content chunk), the tool call split
 * over its argument chunks, the finish chunk, a usage chunk (the
 * `stream_options.include_usage` form, sent always) and `[DONE]`. Rejects
 * with `AbortError` if `signal` fires during a wait.
 */
export async function writeChunks(
  reply: MessageReply,
  identity: ResponseIdentity,
  usage: Usage,
  write: (text: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
    sseData({
      ...identity,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });

  write(chunk({ role: "assistant", content: "" }));
  for (const text of reply.reasoning) write(chunk({ reasoning_content: text }));
  for (const text of reply.content) {
    if (reply.delayMs > 0) await sleep(reply.delayMs, signal, "scripted model reply");
    write(chunk({ content: text }));
  }
  if (reply.toolCall) {
    const { id, name, argumentChunks } = reply.toolCall;
    write(
      chunk({
        tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }],
      }),
    );
    for (const part of argumentChunks) {
      write(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
    }
  }
  write(chunk({}, reply.finishReason));
  write(sseData({ ...identity, object: "chat.completion.chunk", choices: [], usage }));
  write(sseDone);
}

/** The `stream: false` form of a reply: one `chat.completion` object. */
export function completionBody(
  reply: MessageReply,
  identity: ResponseIdentity,
  usage: Usage,
): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: reply.content.join("") };
  if (reply.reasoning.length > 0) message.reasoning_content = reply.reasoning.join("");
  if (reply.toolCall) {
    const { id, name, argumentChunks } = reply.toolCall;
    message.content = null;
    message.tool_calls = [
      { id, type: "function", function: { name, arguments: argumentChunks.join("") } },
    ];
  }
  return {
    ...identity,
    object: "chat.completion",
    choices: [{ index: 0, message, finish_reason: reply.finishReason }],
    usage,
  };
}
