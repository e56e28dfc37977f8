/**
 * What the sidecar says about a session from its records alone (one it does not follow), and
 * the child session of a subagent of one it follows.
 */
import { BACKEND_KINDS } from "../backends/backend.js";
import { BACKEND_CAPABILITIES } from "../backends/capabilities.js";
import { UsageError } from "../errors.js";
import type { ChildSession, Session } from "../runtime/session/session.js";
import type { SessionRecord } from "../store/store.js";
import type { SessionInfo } from "../wire/http.js";

/** A kept session as a client is told about it (not open here). */
export function recordInfo(record: SessionRecord): SessionInfo {
  // What its backend can do, known without opening it (a record of an unknown backend: nothing).
  const kind = BACKEND_KINDS.find((known) => known === record.backend);
  return {
    id: record.id,
    ...(kind === undefined ? {} : { capabilities: { ...BACKEND_CAPABILITIES[kind] } }),
    ...(record.title === undefined ? {} : { title: record.title }),
    directory: record.directory,
    backend: record.backend,
    open: false,
    state: record.state,
    running: false,
    lastSeq: 0,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** `session.child(childId)`, or undefined when no subagent of the session has that id. */
export function childOf(session: Session, childId: string): ChildSession | undefined {
  try {
    return session.child(childId);
  } catch (error) {
    if (error instanceof UsageError) return undefined;
    throw error;
  }
}
