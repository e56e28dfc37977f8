/**
 * `session.next.*` events of the `/api` surface. The durable per-session stream
 * (`/api/session/{id}/event?after=`) carries whole values with `durable.seq`; the live
 * global stream (`/api/event`) carries the same durable events plus deltas, for every session.
 */
import { z } from "zod";
import {
  ErrorInfo,
  LocationRef,
  type Parsed,
  parseByType,
  Todo,
  Tokens,
  WireModelRef,
} from "../common.js";

export const Durable = z.looseObject({
  aggregateID: z.string(),
  seq: z.number(),
  version: z.number(),
});

const event = <T extends string, D extends z.ZodRawShape>(type: T, data: D) =>
  z.looseObject({
    id: z.string(),
    type: z.literal(type),
    durable: Durable.optional(),
    location: LocationRef.optional(),
    data: z.looseObject({ timestamp: z.number(), sessionID: z.string(), ...data }),
  });

/** The live-only events (asks, todos): no timestamp; an ask's `id` in `data` is its request id. */
const ask = <T extends string, D extends z.ZodRawShape>(type: T, data: D) =>
  z.looseObject({
    id: z.string(),
    type: z.literal(type),
    durable: Durable.optional(), // never present: asks are live-only
    location: LocationRef.optional(),
    data: z.looseObject({ sessionID: z.string(), ...data }),
  });

const message = { assistantMessageID: z.string() };
const Prompt = z.looseObject({ text: z.string(), files: z.array(z.unknown()).optional() });

export const apiEventSchemas = {
  "session.next.prompt.admitted": event("session.next.prompt.admitted", {
    messageID: z.string(),
    prompt: Prompt,
    delivery: z.enum(["steer", "queue"]),
  }),
  "session.next.prompted": event("session.next.prompted", {
    messageID: z.string(),
    prompt: Prompt,
    delivery: z.enum(["steer", "queue"]),
  }),
  "session.next.step.started": event("session.next.step.started", {
    ...message,
    agent: z.string(),
    model: WireModelRef,
  }),
  "session.next.step.ended": event("session.next.step.ended", {
    ...message,
    finish: z.string(),
    cost: z.number(),
    tokens: Tokens,
  }),
  "session.next.step.failed": event("session.next.step.failed", { ...message, error: ErrorInfo }),
  "session.next.text.started": event("session.next.text.started", {
    ...message,
    textID: z.string(),
  }),
  "session.next.text.delta": event("session.next.text.delta", {
    ...message,
    textID: z.string(),
    delta: z.string(),
  }),
  "session.next.text.ended": event("session.next.text.ended", {
    ...message,
    textID: z.string(),
    text: z.string(),
  }),
  "session.next.reasoning.started": event("session.next.reasoning.started", {
    ...message,
    reasoningID: z.string(),
  }),
  "session.next.reasoning.delta": event("session.next.reasoning.delta", {
    ...message,
    reasoningID: z.string(),
    delta: z.string(),
  }),
  "session.next.reasoning.ended": event("session.next.reasoning.ended", {
    ...message,
    reasoningID: z.string(),
    text: z.string(),
  }),
  "session.next.tool.input.started": event("session.next.tool.input.started", {
    ...message,
    callID: z.string(),
    name: z.string(),
  }),
  "session.next.tool.input.delta": event("session.next.tool.input.delta", {
    ...message,
    callID: z.string(),
    delta: z.string(),
  }),
  "session.next.tool.input.ended": event("session.next.tool.input.ended", {
    ...message,
    callID: z.string(),
    text: z.string(),
  }),
  "session.next.tool.called": event("session.next.tool.called", {
    ...message,
    callID: z.string(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
  "session.next.tool.progress": event("session.next.tool.progress", {
    ...message,
    callID: z.string(),
  }),
  "session.next.tool.success": event("session.next.tool.success", {
    ...message,
    callID: z.string(),
    content: z.array(z.unknown()),
    result: z.unknown().optional(),
  }),
  "session.next.tool.failed": event("session.next.tool.failed", {
    ...message,
    callID: z.string(),
    error: ErrorInfo,
  }),
  "session.next.retried": event("session.next.retried", {
    attempt: z.number(),
    error: z.unknown(),
  }),
  "session.next.model.switched": event("session.next.model.switched", {
    messageID: z.string(),
    model: WireModelRef,
  }),
  "session.next.agent.switched": event("session.next.agent.switched", {
    messageID: z.string(),
    agent: z.string(),
  }),
  "session.next.compaction.started": event("session.next.compaction.started", {
    messageID: z.string(),
    reason: z.string(),
  }),
  "session.next.compaction.ended": event("session.next.compaction.ended", {
    messageID: z.string(),
    reason: z.string(),
    text: z.string(),
  }),
  "session.next.synthetic": event("session.next.synthetic", {
    messageID: z.string(),
    text: z.string(),
  }),
  "permission.v2.asked": ask("permission.v2.asked", {
    id: z.string(),
    action: z.string(),
    resources: z.array(z.string()),
    save: z.array(z.string()).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    source: z.looseObject({ callID: z.string().optional() }).optional(),
  }),
  "permission.v2.replied": ask("permission.v2.replied", {
    requestID: z.string(),
    reply: z.string(),
  }),
  "question.v2.asked": ask("question.v2.asked", {
    id: z.string(),
    questions: z.array(z.unknown()),
    tool: z.looseObject({ callID: z.string() }).optional(),
  }),
  "question.v2.replied": ask("question.v2.replied", {
    requestID: z.string(),
    answers: z.array(z.unknown()).optional(),
  }),
  "question.v2.rejected": ask("question.v2.rejected", { requestID: z.string() }),
  /**
   * The `todowrite` tool's whole list, after each write. Verified on 1.18.33: live only (on
   * `/api/event`, and as `properties` on the legacy `/event`), never on the durable stream,
   * and without a timestamp; `GET /session/{id}/todo` reads the list kept.
   */
  "todo.updated": ask("todo.updated", { todos: z.array(Todo) }),
} as const;

type Schemas = typeof apiEventSchemas;
/** A validated `/api` event of a known type. */
export type ApiEvent = { [K in keyof Schemas]: z.infer<Schemas[K]> }[keyof Schemas];
export type ApiEventType = keyof Schemas;

/** Parses one frame of either `/api` stream. */
export function parseApiEvent(raw: unknown): Parsed<ApiEvent> {
  return parseByType<ApiEvent>(apiEventSchemas, raw, "/api event");
}

/** The session an `/api` event belongs to, if any (the live stream is global). */
export function apiEventSessionId(
  raw: { type: string } & Record<string, unknown>,
): string | undefined {
  const data = raw.data;
  if (typeof data === "object" && data !== null && "sessionID" in data) {
    const id = (data as { sessionID: unknown }).sessionID;
    return typeof id === "string" ? id : undefined;
  }
  return undefined;
}

/**
 * The seq of a durable `/api` event (its place in the session's log), if it has one. Only a
 * whole number a cursor can hold counts: a garbled one (Infinity, 2**64, -1, 0.5) would become
 * the stream's cursor, and every later event would be skipped as already seen.
 */
export function apiEventDurableSeq(event: Record<string, unknown>): number | undefined {
  const durable = event.durable;
  if (typeof durable !== "object" || durable === null) return undefined;
  const seq = (durable as { seq?: unknown }).seq;
  return Number.isSafeInteger(seq) && (seq as number) >= 0 ? (seq as number) : undefined;
}
