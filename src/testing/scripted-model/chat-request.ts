/**
 * The OpenAI chat-completions request body, as far as the scripted model reads
 * it. Lenient on purpose: clients (OpenCode through the AI SDK) send many more
 * fields than we use, and those must pass through into the recording.
 */
import { z } from "zod";

/** One part of an array-valued message `content` (`text`, `image_url`, `file`, `input_audio`, …). */
export const ContentPartSchema = z.looseObject({ type: z.string() });
export type ContentPart = z.infer<typeof ContentPartSchema>;

/** A tool call inside an assistant message. */
export const MessageToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

/** One chat message (`system`, `user`, `assistant`, `tool`, …). */
export const ChatMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(ContentPartSchema), z.null()]).optional(),
  tool_calls: z.array(MessageToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** The request body of `POST /v1/chat/completions`. */
export const ChatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(ChatMessageSchema),
  stream: z.boolean().optional(),
  tools: z
    .array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }) }))
    .optional(),
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** The text of a message: the string content, or its text parts joined by newlines. */
export function messageText(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : undefined))
    .filter((text) => text !== undefined)
    .join("\n");
}

/** Index of the last message with this role, or -1. */
export function lastIndexOfRole(messages: readonly ChatMessage[], role: string): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === role) return index;
  }
  return -1;
}
