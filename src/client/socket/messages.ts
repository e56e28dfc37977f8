/**
 * The WebSocket messages, as this client reads and writes them (the schemas are the sidecar's
 * own, `src/wire/ws.ts`). What the sidecar sends is validated once, here, at the
 * boundary: a message of a type this client does not know is passed over (a newer sidecar may
 * add some); one of a known type that fails its schema is an error for its session.
 */
import { type ClientMessage, type ServerMessage, ServerMessageSchema } from "../../wire/ws.js";

export type { ClientMessage, ServerMessage };

const KNOWN_TYPES: ReadonlySet<string> = new Set(
  ServerMessageSchema.options.map((option) => option.shape.type.value),
);

export type ParsedMessage =
  | { ok: true; message: ServerMessage | undefined }
  | { ok: false; error: string; sessionId?: string };

export function parseServerMessage(data: unknown): ParsedMessage {
  if (typeof data !== "string") return { ok: false, error: "the sidecar sent a binary frame" };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { ok: false, error: `the sidecar sent a frame that is not JSON: ${data.slice(0, 80)}` };
  }
  const type = fieldOf(json, "type");
  if (type === undefined) return { ok: false, error: "the sidecar sent a message without a type" };
  if (!KNOWN_TYPES.has(type)) return { ok: true, message: undefined };
  const parsed = ServerMessageSchema.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
  const sessionId = fieldOf(json, "sessionId");
  return {
    ok: false,
    error: `the sidecar's ${type} message does not fit this client (${issues}); is it another version?`,
    ...(sessionId !== undefined && { sessionId }),
  };
}

function fieldOf(json: unknown, key: string): string | undefined {
  if (typeof json !== "object" || json === null) return undefined;
  const value = (json as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}
