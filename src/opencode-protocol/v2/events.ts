/**
 * OpenCode 2.0 `session.*` events, as recorded from a real 2.0.18 server in seed 000
 * (`fixtures/opencode-2.0.18/interrupt.transcript.ndjson`). 2.0 cannot be installed here, so
 * these schemas are pinned to that recording; fields not seen there are left open.
 */
import { z } from "zod";
import {
  ErrorInfo,
  LocationRef,
  type Parsed,
  parseByType,
  Tokens,
  WireModelRef,
} from "../common.js";

const Durable = z.looseObject({ aggregateID: z.string(), seq: z.number(), version: z.number() });

const event = <T extends string, D extends z.ZodRawShape>(type: T, data: D) =>
  z.looseObject({
    id: z.string(),
    type: z.literal(type),
    created: z.number().optional(),
    durable: Durable.optional(),
    location: LocationRef.optional(),
    data: z.looseObject(data),
  });

const session = { sessionID: z.string() };
const message = { sessionID: z.string(), assistantMessageID: z.string() };
const InboxItem = z.looseObject({
  type: z.string(),
  payload: z.looseObject({ text: z.string().optional() }),
  delivery: z.enum(["steer", "queue"]),
});

export const v2EventSchemas = {
  "server.connected": event("server.connected", {}),
  "session.created": event("session.created", { ...session, title: z.string().optional() }),
  "session.inbox.enqueued": event("session.inbox.enqueued", {
    ...session,
    inboxID: z.string(),
    item: InboxItem,
  }),
  "session.inbox.delivered": event("session.inbox.delivered", { ...session, inboxID: z.string() }),
  "session.execution.started": event("session.execution.started", session),
  "session.execution.succeeded": event("session.execution.succeeded", session),
  "session.execution.failed": event("session.execution.failed", {
    ...session,
    error: ErrorInfo.optional(),
  }),
  "session.execution.interrupted": event("session.execution.interrupted", {
    ...session,
    reason: z.string().optional(),
  }),
  "session.instructions.updated": event("session.instructions.updated", session),
  "session.step.started": event("session.step.started", {
    ...message,
    agent: z.string(),
    model: WireModelRef,
  }),
  "session.step.streamed": event("session.step.streamed", message),
  "session.step.ended": event("session.step.ended", {
    ...message,
    cost: z.number().optional(),
    tokens: Tokens.optional(),
  }),
  "session.step.failed": event("session.step.failed", {
    ...message,
    error: ErrorInfo,
    cost: z.number().optional(),
    tokens: Tokens.optional(),
  }),
  "session.text.started": event("session.text.started", { ...message, ordinal: z.number() }),
  "session.text.delta": event("session.text.delta", {
    ...message,
    ordinal: z.number(),
    delta: z.string(),
  }),
  "session.text.ended": event("session.text.ended", {
    ...message,
    ordinal: z.number(),
    text: z.string(),
  }),
  "session.tool.input.started": event("session.tool.input.started", {
    ...message,
    id: z.string(),
    name: z.string(),
  }),
  "session.tool.input.delta": event("session.tool.input.delta", {
    ...message,
    id: z.string(),
    delta: z.string(),
  }),
  "session.tool.input.ended": event("session.tool.input.ended", {
    ...message,
    id: z.string(),
    text: z.string(),
  }),
  "session.tool.called": event("session.tool.called", {
    ...message,
    id: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
  "session.tool.progress": event("session.tool.progress", { ...message, id: z.string() }),
  "session.tool.success": event("session.tool.success", { ...message, id: z.string() }),
  "session.tool.failed": event("session.tool.failed", {
    ...message,
    id: z.string(),
    error: ErrorInfo,
  }),
  "session.usage.updated": event("session.usage.updated", {
    ...session,
    cost: z.number(),
    tokens: Tokens,
  }),
} as const;

type Schemas = typeof v2EventSchemas;
/** A validated OpenCode 2.0 event of a known type. */
export type V2Event = { [K in keyof Schemas]: z.infer<Schemas[K]> }[keyof Schemas];
export type V2EventType = keyof Schemas;

/** Parses one OpenCode 2.0 event. */
export function parseV2Event(raw: unknown): Parsed<V2Event> {
  return parseByType<V2Event>(v2EventSchemas, raw, "OpenCode 2.0 event");
}
