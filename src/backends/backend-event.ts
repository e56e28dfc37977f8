/**
 * A durable event a backend says itself, where the server says nothing the bridge can map
 * (the model of a backend that names it on each prompt; a revert the runtime asked for).
 */
import { randomUUID } from "node:crypto";
import { canonical } from "../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, DurableType } from "../events/canonical.js";
import type { BackendKind } from "./backend.js";

export function backendEvent<T extends DurableType>(
  sessionId: string,
  backend: BackendKind,
  action: string,
  type: T,
  data: CanonicalEventOf<T>["data"],
  options: {
    /** The turn it tells of (`files.changed`, after the turn's end); none by default. */
    turnId?: string;
    /**
     * Its native id, where the same event may be said twice (a turn's end read again after
     * an adoption): one id is one event to the store. A fresh id by default.
     */
    nativeId?: string;
  } = {},
): CanonicalEvent {
  const native = { backend, type: action, id: options.nativeId ?? `${action}_${randomUUID()}` };
  return canonical({ sessionId, turnId: options.turnId, at: Date.now(), native }, 0, type, data);
}
