/**
 * The one way a backend's read loop normalises a native event: whatever the normaliser makes
 * of it, or, if it throws, a `native.unknown` carrying the error. One odd event is never
 * dropped and never ends the loop. Events that came without a time of their own (asks, on
 * 1.18) get the time they were seen.
 */
import { formatIssues, type ProtocolIssue } from "../errors.js";
import type { Parsed } from "../opencode-protocol/common.js";
import { describeError } from "../util/describe-error.js";
import { canonical, type Normalized } from "./build.js";
import type { CanonicalEvent, NativeOrigin } from "./canonical.js";
import type { TurnState } from "./turn-state.js";

/** A pure normaliser of one protocol. */
export type Normalizer<State, Native> = (state: State, parsed: Parsed<Native>) => Normalized<State>;

/** What the backend knows of the event beyond the event itself. */
export interface SeenEvent {
  backend: NativeOrigin["backend"];
  /** When the backend received it (default now). */
  seenAt?: number;
}

/**
 * `normalize(state, parsed)`, never throwing: on a throw the state is kept and the event
 * becomes `native.unknown` with the error. A `native.unknown` for an event that failed its
 * schema says how (`error`); an event without a time of its own (`at: 0`) gets `seenAt`.
 */
export function normalizeSafely<State extends TurnState & { readonly sessionId: string }, Native>(
  normalize: Normalizer<State, Native>,
  state: State,
  parsed: Parsed<Native>,
  seen: SeenEvent,
): Normalized<State> {
  const seenAt = seen.seenAt ?? Date.now();
  const issues = parsed.known ? undefined : parsed.issues;
  try {
    const result = normalize(state, parsed);
    // Most events need nothing completed: then the normaliser's result is handed on as it is.
    if (!result.events.some((event) => incomplete(event, issues))) return result;
    return { state: result.state, events: result.events.map((e) => completed(e, seenAt, issues)) };
  } catch (error) {
    return { state, events: [unhandled(state, parsed, seen.backend, seenAt, error)] };
  }
}

/** What `completed` changes: no time of its own, or a refused frame's `native.unknown` without the why. */
function incomplete(event: CanonicalEvent, issues: readonly ProtocolIssue[] | undefined): boolean {
  return event.at === 0 || (event.type === "native.unknown" && issues !== undefined);
}

function completed(
  event: CanonicalEvent,
  seenAt: number,
  issues: readonly ProtocolIssue[] | undefined,
): CanonicalEvent {
  let made = event.at === 0 ? { ...event, at: seenAt } : event;
  if (made.type === "native.unknown" && issues !== undefined && made.data.error === undefined) {
    made = { ...made, data: { ...made.data, error: formatIssues(issues) } };
  }
  return made;
}

function unhandled<State extends TurnState & { readonly sessionId: string }, Native>(
  state: State,
  parsed: Parsed<Native>,
  backend: NativeOrigin["backend"],
  seenAt: number,
  error: unknown,
): CanonicalEvent {
  const raw = parsed.event as { type: string; id?: unknown; durable?: { seq?: unknown } };
  const native: NativeOrigin = {
    backend,
    type: raw.type,
    ...(typeof raw.id === "string" ? { id: raw.id } : {}),
    ...(typeof raw.durable?.seq === "number" ? { seq: raw.durable.seq } : {}),
  };
  return canonical(
    { sessionId: state.sessionId, turnId: state.turn?.id, at: seenAt, native },
    0,
    "native.unknown",
    { nativeType: raw.type, raw: parsed.event, error: describeError(error) },
  );
}
