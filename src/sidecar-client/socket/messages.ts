/**
 * The WebSocket messages, as this client reads and writes them. What the sidecar sends is
 * validated once, here, at the boundary: a message of a type this client does not know is
 * passed over (a newer sidecar may add some), one of a known type that fails its schema is an
 * error for its session.
 */
import { z } from "zod";

/** What the client sends. */
export type ClientMessage =
  | { type: "subscribe"; sessionId: string; after: number }
  | { type: "unsubscribe"; sessionId: string }
  | { type: "ping"; id: string };

const Envelope = z.looseObject({ type: z.string(), sessionId: z.string().optional() });

const ServerMessageSchema = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("event"),
    sessionId: z.string(),
    event: z.looseObject({ type: z.string(), durable: z.boolean(), seq: z.number().optional() }),
  }),
  z.looseObject({ type: z.literal("caught-up"), sessionId: z.string(), seq: z.number() }),
  z.looseObject({ type: z.literal("dropped"), sessionId: z.string(), count: z.number() }),
  z.looseObject({ type: z.literal("pong"), id: z.string().optional() }),
  z.looseObject({
    type: z.literal("error"),
    sessionId: z.string().optional(),
    error: z.looseObject({ code: z.string(), message: z.string() }),
  }),
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

const KNOWN = new Set(["event", "caught-up", "dropped", "pong", "error"]);

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
  const envelope = Envelope.safeParse(json);
  if (!envelope.success) return { ok: false, error: "the sidecar sent a message without a type" };
  if (!KNOWN.has(envelope.data.type)) return { ok: true, message: undefined };
  const parsed = ServerMessageSchema.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  return {
    ok: false,
    error: `the sidecar's ${envelope.data.type} message does not fit this client: ${parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
      .join("; ")}`,
    ...(envelope.data.sessionId !== undefined && { sessionId: envelope.data.sessionId }),
  };
}
