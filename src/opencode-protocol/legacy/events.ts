/**
 * Frames of the legacy `GET /event` stream: `data: {"id","type","properties"}`, with no
 * SSE `id:` line (so no Last-Event-ID resume). Known types are validated; others pass through.
 */
import { z } from "zod";
import { type Parsed, parseByType, Todo } from "../common.js";
import { Part } from "./parts.js";
import { Message, PermissionRequest, QuestionRequest, Session, SessionStatus } from "./session.js";

const event = <T extends string, P extends z.ZodType>(type: T, properties: P) =>
  z.looseObject({ id: z.string().optional(), type: z.literal(type), properties });

export const legacyEventSchemas = {
  "server.connected": event("server.connected", z.looseObject({})),
  "server.heartbeat": event("server.heartbeat", z.looseObject({})),
  "session.created": event("session.created", z.looseObject({ info: Session })),
  "session.updated": event("session.updated", z.looseObject({ info: Session })),
  "session.deleted": event("session.deleted", z.looseObject({ info: Session })),
  "session.status": event(
    "session.status",
    z.looseObject({ sessionID: z.string(), status: SessionStatus }),
  ),
  "session.idle": event("session.idle", z.looseObject({ sessionID: z.string() })),
  "session.error": event(
    "session.error",
    z.looseObject({ sessionID: z.string().optional(), error: z.unknown().optional() }),
  ),
  "session.diff": event("session.diff", z.looseObject({ sessionID: z.string() })),
  /** After a summarize (`/session/{id}/summarize`) wrote its summary. */
  "session.compacted": event("session.compacted", z.looseObject({ sessionID: z.string() })),
  "message.updated": event(
    "message.updated",
    z.looseObject({ sessionID: z.string().optional(), info: Message }),
  ),
  "message.removed": event(
    "message.removed",
    z.looseObject({ sessionID: z.string(), messageID: z.string() }),
  ),
  "message.part.updated": event(
    "message.part.updated",
    z.looseObject({ sessionID: z.string().optional(), part: Part }),
  ),
  "message.part.delta": event(
    "message.part.delta",
    z.looseObject({
      sessionID: z.string(),
      messageID: z.string(),
      partID: z.string(),
      field: z.string(),
      delta: z.string(),
    }),
  ),
  "message.part.removed": event(
    "message.part.removed",
    z.looseObject({ sessionID: z.string(), messageID: z.string(), partID: z.string() }),
  ),
  "permission.asked": event("permission.asked", PermissionRequest),
  "permission.replied": event(
    "permission.replied",
    z.looseObject({ sessionID: z.string(), requestID: z.string(), reply: z.string() }),
  ),
  "question.asked": event("question.asked", QuestionRequest),
  "question.replied": event(
    "question.replied",
    z.looseObject({ sessionID: z.string(), requestID: z.string() }),
  ),
  "question.rejected": event(
    "question.rejected",
    z.looseObject({ sessionID: z.string(), requestID: z.string() }),
  ),
  "file.edited": event("file.edited", z.looseObject({ file: z.string() })),
  "todo.updated": event(
    "todo.updated",
    z.looseObject({ sessionID: z.string(), todos: z.array(Todo) }),
  ),
} as const;

/**
 * Event types the server sends but does not describe in `GET /doc` (the drift test checks
 * this list stays true): `server.heartbeat` arrives every 10 s on `/event`.
 */
export const UNDOCUMENTED_LEGACY_EVENTS: readonly string[] = ["server.heartbeat"];

type Schemas = typeof legacyEventSchemas;
/** A validated legacy event of a known type. */
export type LegacyEvent = { [K in keyof Schemas]: z.infer<Schemas[K]> }[keyof Schemas];
export type LegacyEventType = keyof Schemas;

/** Parses one `/event` frame. */
export function parseLegacyEvent(raw: unknown): Parsed<LegacyEvent> {
  return parseByType<LegacyEvent>(legacyEventSchemas, raw, "legacy /event frame");
}

/** The session a legacy event belongs to, if any (`/event` carries every session's events). */
export function legacyEventSessionId(
  event: { type: string } & Record<string, unknown>,
): string | undefined {
  const properties = event.properties as
    | {
        sessionID?: unknown;
        info?: { id?: unknown; sessionID?: unknown };
        part?: { sessionID?: unknown };
      }
    | undefined;
  const id =
    properties?.sessionID ??
    properties?.part?.sessionID ??
    (event.type.startsWith("session.") ? properties?.info?.id : properties?.info?.sessionID);
  return typeof id === "string" ? id : undefined;
}
