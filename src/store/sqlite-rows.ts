/**
 * The rows SQLite gives back, checked into typed values. The store wrote them itself, so a row
 * that fails a check means the file was changed behind its back: that fails loudly rather than
 * handing the runtime a malformed event.
 */

import { OpencodeBridgeError } from "../errors.js";
import { type CanonicalEvent, isDurableType } from "../events/canonical.js";
import { isRecord } from "../util/is-record.js";
import type { SessionRecord } from "./store.js";

/** A stored event body (JSON text) as the event. */
export function eventOfBody(body: unknown, where: string): CanonicalEvent {
  const value = typeof body === "string" ? parseJson(body) : undefined;
  if (
    !isRecord(value) ||
    typeof value.id !== "string" ||
    typeof value.sessionId !== "string" ||
    typeof value.seq !== "number" ||
    typeof value.type !== "string" ||
    !isDurableType(value.type) ||
    !isRecord(value.data)
  ) {
    throw new OpencodeBridgeError(`${where} holds an event row that is not a canonical event`);
  }
  // Checked above as far as the envelope goes; the payload is what the store was given.
  return value as unknown as CanonicalEvent;
}

const STATES: readonly SessionRecord["state"][] = ["open", "released", "killed"];

/** A `sessions` row as its record; NULL columns become absent fields. */
export function sessionOfRow(row: unknown, where: string): SessionRecord {
  if (
    !isRecord(row) ||
    typeof row.id !== "string" ||
    typeof row.backend !== "string" ||
    typeof row.directory !== "string" ||
    typeof row.created_at !== "number" ||
    typeof row.updated_at !== "number"
  ) {
    throw new OpencodeBridgeError(`${where} holds a session row of the wrong shape`);
  }
  const state = STATES.find((known) => known === row.state);
  if (state === undefined) {
    throw new OpencodeBridgeError(`${where} holds a session in state ${String(row.state)}`);
  }
  return {
    id: row.id,
    backend: row.backend,
    ...(typeof row.upstream_id === "string" ? { upstreamId: row.upstream_id } : {}),
    directory: row.directory,
    ...(typeof row.title === "string" ? { title: row.title } : {}),
    state,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Reported by the caller as a row that is not an event, with where it is.
    return undefined;
  }
}
