/**
 * What the scripted model remembers about each request, so tests can assert on
 * what OpenCode actually sent to its model (messages, offered tools, images).
 */
import {
  type ChatMessage,
  type ChatRequest,
  type ContentPart,
  lastIndexOfRole,
  messageText,
} from "./chat-request.js";

/** A non-text part of a user message, such as an image. */
export interface Attachment {
  type: "image_url" | "file" | "input_audio" | (string & {});
  /** The URL as sent; images usually arrive as `data:` URLs. */
  url?: string;
  /** The media type, from the `data:` URL or the part itself. */
  mime?: string;
  /** The file name, when the part carries one. */
  filename?: string;
}

/** One request the scripted model received, in arrival order. */
export interface RecordedRequest {
  /** `Date.now()` when the body had been read. */
  at: number;
  method: string;
  path: string;
  /** The parsed JSON body, the raw text when it was not JSON, or `undefined` when empty. */
  body: unknown;
  model?: string;
  stream: boolean;
  messages: ChatMessage[];
  /** Names of the functions offered as tools. */
  tools: string[];
  /** Text of the last user message (text parts joined by newlines); directives are read from it. */
  lastUserText: string;
  /** Every non-text part of every user message in this request. */
  attachments: Attachment[];
}

/** Builds the record of a request whose body was not a chat-completions request (or had none). */
export function recordOther(method: string, path: string, body: unknown): RecordedRequest {
  return {
    at: Date.now(),
    method,
    path,
    body,
    stream: false,
    messages: [],
    tools: [],
    lastUserText: "",
    attachments: [],
  };
}

/** Builds the record of a valid chat-completions request. */
export function recordChat(
  method: string,
  path: string,
  body: unknown,
  request: ChatRequest,
): RecordedRequest {
  const { messages } = request;
  const recorded: RecordedRequest = {
    ...recordOther(method, path, body),
    stream: request.stream === true,
    messages,
    tools: (request.tools ?? []).map((tool) => tool.function.name),
    lastUserText: messageText(messages[lastIndexOfRole(messages, "user")]),
    attachments: messages
      .filter((message) => message.role === "user" && Array.isArray(message.content))
      .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
      .filter((part) => part.type !== "text")
      .map(toAttachment),
  };
  if (request.model !== undefined) recorded.model = request.model;
  return recorded;
}

function toAttachment(part: ContentPart): Attachment {
  const attachment: Attachment = { type: part.type };
  const url = urlOf(part);
  if (url !== undefined) attachment.url = url;
  const mime = dataUrlMime(url) ?? audioMime(part);
  if (mime !== undefined) attachment.mime = mime;
  const filename = field(part.file, "filename");
  if (filename !== undefined) attachment.filename = filename;
  return attachment;
}

/** `image_url` is either a string or `{ url }`; `file` carries `file_data` (a data URL) or `file_id`. */
function urlOf(part: ContentPart): string | undefined {
  if (typeof part.image_url === "string") return part.image_url;
  return (
    field(part.image_url, "url") ?? field(part.file, "file_data") ?? field(part.file, "file_id")
  );
}

function audioMime(part: ContentPart): string | undefined {
  const format = field(part.input_audio, "format");
  return format === undefined ? undefined : `audio/${format}`;
}

function dataUrlMime(url: string | undefined): string | undefined {
  return url === undefined ? undefined : /^data:([^;,]+)[;,]/.exec(url)?.[1];
}

function field(value: unknown, key: string): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const found: unknown = (value as Record<string, unknown>)[key];
  return typeof found === "string" ? found : undefined;
}
