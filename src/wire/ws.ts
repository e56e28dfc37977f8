/**
 * The messages of the sidecar's WebSocket (`GET /v1/ws`): JSON text frames. Client messages
 * are strict (a typo is an error, not a silent no-op); server messages are read leniently.
 */
import { z } from "zod";
import { CanonicalEventSchema } from "./canonical-schema.js";

// --- client → server ---

export const SubscribeMessageSchema = z.strictObject({
  type: z.literal("subscribe"),
  sessionId: z.string().min(1).max(200),
  /** Replay the kept durable events after this seq (default 0: all of them). */
  after: z.number().int().min(0).optional(),
});

export const UnsubscribeMessageSchema = z.strictObject({
  type: z.literal("unsubscribe"),
  sessionId: z.string().min(1).max(200),
});

export const PingMessageSchema = z.strictObject({
  type: z.literal("ping"),
  id: z.union([z.string().max(200), z.number()]).optional(),
});

export const ClientMessageSchema = z.discriminatedUnion("type", [
  SubscribeMessageSchema,
  UnsubscribeMessageSchema,
  PingMessageSchema,
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

// --- server → client ---

export const EventMessageSchema = z.object({
  type: z.literal("event"),
  sessionId: z.string(),
  event: CanonicalEventSchema,
});

/** The kept durable events past `after` have all been sent; live ones follow. */
export const CaughtUpMessageSchema = z.object({
  type: z.literal("caught-up"),
  sessionId: z.string(),
  seq: z.number().int(),
});

/** Ephemeral events skipped because the client fell behind (durable ones never are). */
export const DroppedMessageSchema = z.object({
  type: z.literal("dropped"),
  sessionId: z.string(),
  count: z.number().int(),
});

export const PongMessageSchema = z.object({
  type: z.literal("pong"),
  id: z.union([z.string(), z.number()]).optional(),
});

export const ErrorMessageSchema = z.object({
  type: z.literal("error"),
  sessionId: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }),
});

export const ServerMessageSchema = z.discriminatedUnion("type", [
  EventMessageSchema,
  CaughtUpMessageSchema,
  DroppedMessageSchema,
  PongMessageSchema,
  ErrorMessageSchema,
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

/** Close codes the server uses, with the reason text's meaning. */
export const WS_CLOSE = {
  /** The sidecar is stopping: reconnect later and resume from your last seq. */
  serviceRestart: 1012,
  /** The client fell too far behind: reconnect and resume from the seq in the reason. */
  slowConsumer: 4008,
} as const;
