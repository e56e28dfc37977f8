/** Small constructors shared by the normalizers. */
import type { Tokens } from "../opencode-protocol/common.js";
import {
  type CanonicalEvent,
  type CanonicalEventOf,
  type CanonicalType,
  type ErrorInfo,
  isDurableType,
  type NativeOrigin,
  type Usage,
} from "./canonical.js";

/** What a normaliser gives for one native event: its next state and the canonical events. */
export interface Normalized<State> {
  state: State;
  events: CanonicalEvent[];
}

/** What every event of one native event shares. */
export interface Origin {
  sessionId: string;
  turnId: string | undefined;
  at: number;
  native: NativeOrigin;
}

/**
 * The native origin of a `serve` event: 1.18's `/api` and 2.0's envelopes both carry an `id`
 * and, on the durable stream, `durable.seq`.
 */
export function serveNativeOf(event: { type: string }): NativeOrigin {
  const raw = event as { id?: unknown; durable?: { seq?: unknown } | null };
  // An event that failed its schema comes here too: only an id and a seq of the right type count.
  const id = typeof raw.id === "string" ? raw.id : undefined;
  const seq = Number.isFinite(raw.durable?.seq) ? (raw.durable?.seq as number) : undefined;
  // Literals of fixed shape, not conditional spreads: this runs for every native event.
  if (id === undefined) {
    return seq === undefined
      ? { backend: "serve", type: event.type }
      : { backend: "serve", type: event.type, seq };
  }
  return seq === undefined
    ? { backend: "serve", type: event.type, id }
    : { backend: "serve", type: event.type, id, seq };
}

/**
 * Makes the `index`-th canonical event of one native event. Its id derives from the native
 * id, so normalising the same native stream twice gives the same ids (replays, resumes).
 */
export function canonical<T extends CanonicalType>(
  origin: Origin,
  index: number,
  type: T,
  data: CanonicalEventOf<T>["data"],
): CanonicalEvent {
  const { native, turnId } = origin;
  const id = `${native.id ?? `${native.type}@${origin.at}`}#${index}`;
  const durable = isDurableType(type);
  // Two literals rather than a conditional spread (which is slow): `turnId` is absent, not
  // undefined, outside a turn.
  const event =
    turnId === undefined
      ? { id, sessionId: origin.sessionId, at: origin.at, type, data, durable, native }
      : { id, sessionId: origin.sessionId, turnId, at: origin.at, type, data, durable, native };
  return event as CanonicalEvent;
}

/** The origin of the events a native event gives while `state`'s turn (if any) runs. */
export function originIn(
  state: { readonly sessionId: string; readonly turn: { readonly id: string } | undefined },
  at: number,
  native: NativeOrigin,
): Origin {
  return { sessionId: state.sessionId, turnId: state.turn?.id, at, native };
}

/** A native event that gives one canonical event (most do), and the state after it. */
export function single<State, T extends CanonicalType>(
  state: State,
  origin: Origin,
  type: T,
  data: CanonicalEventOf<T>["data"],
): Normalized<State> {
  return { state, events: [canonical(origin, 0, type, data)] };
}

/** OpenCode's token counts as canonical usage. */
export function usageOf(tokens: Tokens, cost: number): Usage {
  return {
    tokens: {
      input: tokens.input,
      output: tokens.output,
      reasoning: tokens.reasoning,
      cacheRead: tokens.cache.read,
      cacheWrite: tokens.cache.write,
    },
    cost,
  };
}

/** The text content of a tool result (`[{type: "text", text}]` items), joined. */
export function textOfContent(content: readonly unknown[]): string {
  return content
    .map((item) =>
      typeof item === "object" && item !== null && "text" in item && typeof item.text === "string"
        ? item.text
        : "",
    )
    .join("");
}

/** Canonical error kinds of OpenCode's named errors; other names are kept as they are. */
const KIND_BY_ERROR_NAME: Readonly<Record<string, string>> = {
  APIError: "provider",
  ProviderAuthError: "provider-auth",
  MessageAbortedError: "aborted",
  MessageOutputLengthError: "output-length",
};

/** OpenCode's `{name, data: {message}}` error objects as canonical error info. */
export function errorInfoOf(error: unknown): ErrorInfo {
  const value = (error ?? {}) as { name?: unknown; data?: { message?: unknown } };
  const name = typeof value.name === "string" ? value.name : "UnknownError";
  const kind = KIND_BY_ERROR_NAME[name] ?? name;
  const message =
    typeof value.data?.message === "string" ? value.data.message : JSON.stringify(error);
  return { kind, message };
}

/** Appends canonical events to `events`, each numbered by its place among them. */
export type Emit = <T extends CanonicalType>(type: T, data: CanonicalEventOf<T>["data"]) => void;

/** An `Emit` into `events`; `origin` is read at each call (the turn may change in between). */
export function emitterInto(events: CanonicalEvent[], origin: () => Origin): Emit {
  return (type, data) => {
    events.push(canonical(origin(), events.length, type, data));
  };
}

// OpenCode's messages for a call the user refused: "The user rejected permission to use this
// specific tool call." and, for the question tool, "The user dismissed this question".
const REJECTED_PERMISSION = /rejected permission/i;
const DISMISSED_QUESTION = /dismissed this question/i;

export type ToolErrorKind = "permission-rejected" | "question-rejected" | "tool";

/** The canonical kind of a tool's error message. */
export function toolErrorKind(message: string): ToolErrorKind {
  if (REJECTED_PERMISSION.test(message)) return "permission-rejected";
  if (DISMISSED_QUESTION.test(message)) return "question-rejected";
  return "tool";
}
