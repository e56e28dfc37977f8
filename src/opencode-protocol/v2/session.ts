/**
 * OpenCode 2.0 operations and their payloads, as seen in seed 000 (a real 2.0.18 session).
 * Only the calls that recording made are described; their HTTP routes are not known here,
 * so these operations run over a transport that knows them (a replay), not HttpTransport.
 */
import { z } from "zod";
import { LocationRef, WireModelRef } from "../common.js";

/** The 2.0 operation ids we speak, and whether each answers inside `{data}`. */
export const v2Operations = {
  "event.subscribe": { wrapped: false },
  "model.list": { wrapped: true },
  "session.create": { wrapped: true },
  "session.instructions.entry.put": { wrapped: false },
  "session.prompt": { wrapped: true },
  "session.interrupt": { wrapped: false },
} as const;
export type V2OperationId = keyof typeof v2Operations;

export const V2Model = z.looseObject({ id: z.string(), providerID: z.string(), name: z.string() });

export const V2Session = z.looseObject({
  id: z.string(),
  projectID: z.string(),
  model: WireModelRef.optional(),
  title: z.string(),
  location: LocationRef,
});
export type V2Session = z.infer<typeof V2Session>;

export const V2SessionCreateRequest = z.strictObject({
  title: z.string().optional(),
  model: z.strictObject({ id: z.string(), providerID: z.string() }).optional(),
  location: z.strictObject({ directory: z.string() }).optional(),
});

export const V2InstructionsPutRequest = z.strictObject({ key: z.string(), value: z.string() });

/** 2.0 takes the prompt flat; `delivery` is required here because the server defaults to steer. */
export const V2PromptRequest = z.strictObject({
  text: z.string(),
  delivery: z.enum(["steer", "queue"]),
  files: z.array(z.unknown()).optional(),
});

export const V2InboxItem = z.looseObject({
  id: z.string(),
  sessionID: z.string(),
  delivery: z.enum(["steer", "queue"]),
});

export const V2Interrupted = z.looseObject({ interrupted: z.boolean() });
