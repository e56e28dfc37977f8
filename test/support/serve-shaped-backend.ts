/**
 * A backend in the test's own process shaped like the serve ones: each input is admitted and
 * starts its turn at once (the server's own queue), the test emits the rest and reports the
 * connection going down and up. For the runtime's own rules; not end to end.
 */
import type { BackendContext, PromptRequest, SessionBackend } from "../../src/backends/backend.js";
import { BACKEND_CAPABILITIES } from "../../src/backends/capabilities.js";
import { canonical } from "../../src/events/build.js";
import type { CanonicalEventOf, CanonicalType } from "../../src/events/canonical.js";
import { turnIdFor } from "../../src/events/turn-state.js";
import { Session, type SessionOptions } from "../../src/runtime/session/session.js";

export class ServeShapedBackend implements SessionBackend {
  readonly kind = "serve" as const;
  readonly capabilities = BACKEND_CAPABILITIES.serve;
  readonly upstreamId: string;
  /** How many times the session abandoned a turn. */
  abandoned = 0;
  #inputs = 0;
  #events = 0;

  constructor(readonly context: BackendContext) {
    this.upstreamId = context.sessionId;
  }

  async ready(): Promise<void> {}
  check(): void {}

  async prompt(request: PromptRequest): Promise<{ inputId: string }> {
    const inputId = request.inputId ?? `in_${++this.#inputs}`;
    const turnId = turnIdFor(inputId);
    this.emit(turnId, "input.admitted", { inputId, text: request.text, delivery: "queue" });
    this.emit(turnId, "turn.started", { inputId });
    return { inputId };
  }

  async interrupt(): Promise<void> {}
  async switchModel(): Promise<void> {}
  async replyPermission(): Promise<void> {}
  async answerQuestion(): Promise<void> {}
  async rejectQuestion(): Promise<void> {}
  async abandonTurn(): Promise<void> {
    this.abandoned++;
  }
  async close(): Promise<void> {}

  /** The native streams failed (again). */
  down(attempt: number): void {
    this.context.connection({ state: "reconnecting", attempt, reason: "ECONNREFUSED" });
  }

  /** The native streams are back. */
  up(): void {
    this.context.connection({ state: "connected" });
  }

  /** Publishes an event of `turnId`, with an id of its own (a repeated id is a re-delivery). */
  emit<T extends CanonicalType>(turnId: string, type: T, data: CanonicalEventOf<T>["data"]) {
    const n = ++this.#events;
    const origin = {
      sessionId: this.context.sessionId,
      turnId,
      at: Date.now(),
      native: { backend: this.kind, type, id: `${turnId}/${type}/${n}` },
    };
    this.context.sink(canonical(origin, 0, type, data));
  }
}

/** A session on a serve-shaped in-process backend (`make` gives a variant of it). */
export function serveShapedSession<B extends ServeShapedBackend = ServeShapedBackend>(
  id: string,
  options: Partial<SessionOptions> = {},
  make: (context: BackendContext) => B = (context) => new ServeShapedBackend(context) as B,
): { session: Session; backend: B } {
  let backend: B | undefined;
  const session = new Session(
    id,
    (context) => {
      backend = make(context);
      return backend;
    },
    { directory: "/tmp", ...options },
  );
  if (backend === undefined) throw new Error("no backend made");
  return { session, backend };
}
