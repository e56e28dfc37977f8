/** Events the runtime originates itself (not derived from a native one), and their texts. */
import type { BackendKind } from "../../backends/backend.js";
import { canonical } from "../../events/build.js";
import type {
  CanonicalEvent,
  CanonicalEventOf,
  CanonicalType,
  ConnectionState,
} from "../../events/canonical.js";
import type { ServerExit } from "../../server/server-handle.js";

/** Who originates an event: the session and its backend's kind. */
export interface RuntimeOrigin {
  sessionId: string;
  backend: BackendKind;
}

/**
 * An event of a turn from `source` (`watchdog`, `runtime.queue`, …). Its id derives from the
 * turn, the source and the type: the runtime says each such thing once per turn.
 */
export function runtimeEvent<T extends CanonicalType>(
  origin: RuntimeOrigin,
  turnId: string,
  source: string,
  type: T,
  data: CanonicalEventOf<T>["data"],
): CanonicalEvent {
  const native = { backend: origin.backend, type: source, id: `${source}_${turnId}_${type}` };
  return canonical({ sessionId: origin.sessionId, turnId, at: Date.now(), native }, 0, type, data);
}

/** The `n`-th change of the session's connection (ephemeral, of no turn). */
export function connectionChangedEvent(
  origin: RuntimeOrigin,
  n: number,
  state: ConnectionState,
): CanonicalEvent {
  const native = {
    backend: origin.backend,
    type: "runtime.connection",
    id: `connection_${origin.sessionId}_${n}`,
  };
  const at = Date.now();
  return canonical(
    { sessionId: origin.sessionId, turnId: undefined, at, native },
    0,
    "connection.changed",
    {
      ...state,
    },
  );
}

/** What the turns a server's death ended are told: how it ended, and its last lines. */
export function serverExitMessage(exit: ServerExit): string {
  const how =
    exit.signal !== null
      ? `was killed by ${exit.signal}`
      : exit.code !== null
        ? `exited with code ${exit.code}`
        : "stopped (how is unknown: this bridge did not start it)";
  const tail = exit.logTail.slice(-10).join("\n");
  return `opencode serve ${how}${tail === "" ? "" : `; its last lines:\n${tail}`}`;
}
