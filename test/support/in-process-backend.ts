/**
 * A backend that runs in the test's own process and publishes canonical events the way a
 * backend without a queue does (the subprocess backend's shape): for the runtime's own rules
 * (numbering, turns, memory) where no OpenCode is involved. Not end to end.
 */
import type { BackendContext, PromptRequest, SessionBackend } from "../../src/backends/backend.js";
import { BACKEND_CAPABILITIES } from "../../src/backends/capabilities.js";
import { canonical } from "../../src/events/build.js";
import type { CanonicalEventOf, CanonicalType } from "../../src/events/canonical.js";
import { turnIdFor } from "../../src/events/turn-state.js";
import { Session, type SessionOptions } from "../../src/runtime/session/session.js";

export class InProcessBackend implements SessionBackend {
  readonly kind = "subprocess" as const;
  readonly capabilities = BACKEND_CAPABILITIES.subprocess;
  readonly upstreamId = "ses_in_process";
  /** The turn running upstream. */
  running: string | undefined;
  /** Every prompt the session sent, in order. */
  readonly prompts: PromptRequest[] = [];
  /** How many times the session interrupted a turn. */
  interrupts = 0;
  /** The next prompt fails with this (a server gone away). */
  failNextPrompt: Error | undefined;
  /** Admit but do not start (a model that never answers). */
  silent = false;
  #inputs = 0;
  #events = 0;

  constructor(readonly context: BackendContext) {}

  async ready(): Promise<void> {}
  check(): void {}

  async prompt(request: PromptRequest): Promise<{ inputId: string }> {
    if (this.failNextPrompt !== undefined) {
      const error = this.failNextPrompt;
      this.failNextPrompt = undefined;
      throw error;
    }
    this.prompts.push(request);
    const inputId = request.inputId ?? `in_${++this.#inputs}`;
    const turnId = turnIdFor(inputId);
    if (!request.announced) {
      this.emit(turnId, "input.admitted", { inputId, text: request.text, delivery: "queue" });
    }
    if (this.silent) return { inputId };
    this.emit(turnId, "turn.started", { inputId });
    this.running = turnId;
    return { inputId };
  }

  /** One step of the running turn: its text in `deltas` pieces, then the whole text. */
  step(deltas: number): void {
    const turnId = this.#runningTurn();
    const stepId = `${turnId}/step_${this.#events}`;
    const partId = `${stepId}/text`;
    this.emit(turnId, "step.started", { stepId });
    this.emit(turnId, "text.started", { partId, stepId });
    for (let i = 0; i < deltas; i++) this.emit(turnId, "text.delta", { partId, delta: `tok${i} ` });
    this.emit(turnId, "text.ended", { partId, stepId, text: `${deltas} tokens` });
    this.emit(turnId, "step.ended", { stepId, finish: "stop" });
  }

  /** Ends the running turn the way a backend does. */
  end(outcome: "completed" | "interrupted" = "completed"): void {
    const turnId = this.#runningTurn();
    this.running = undefined;
    this.emit(turnId, "turn.ended", { outcome, text: "done" });
  }

  async interrupt(): Promise<void> {
    this.interrupts++;
    if (this.running !== undefined) this.end("interrupted");
  }

  async switchModel(): Promise<void> {}
  async replyPermission(): Promise<void> {}
  async answerQuestion(): Promise<void> {}
  async rejectQuestion(): Promise<void> {}
  async abandonTurn(): Promise<void> {}
  async close(): Promise<void> {}

  emit<T extends CanonicalType>(turnId: string, type: T, data: CanonicalEventOf<T>["data"]) {
    const n = ++this.#events;
    const origin = {
      sessionId: this.context.sessionId,
      turnId,
      at: n,
      native: { backend: this.kind, type, id: `evt_${n}` },
    };
    this.context.sink(canonical(origin, 0, type, data));
  }

  /** An event of a subagent's child session `childId`, as a backend hands those out. */
  emitChild<T extends CanonicalType>(
    childId: string,
    turnId: string,
    type: T,
    data: CanonicalEventOf<T>["data"],
  ) {
    const n = ++this.#events;
    const origin = {
      sessionId: childId,
      turnId,
      at: n,
      native: { backend: this.kind, type, id: `evt_${n}` },
    };
    this.context.childSink(canonical(origin, 0, type, data));
  }

  #runningTurn(): string {
    if (this.running === undefined) throw new Error("no turn runs");
    return this.running;
  }
}

/** A session on an in-process backend. */
export function inProcessSession(
  id: string,
  options: Partial<SessionOptions> = {},
): { session: Session; backend: InProcessBackend } {
  let backend: InProcessBackend | undefined;
  const session = new Session(
    id,
    (context) => {
      backend = new InProcessBackend(context);
      return backend;
    },
    { directory: "/tmp", ...options },
  );
  if (backend === undefined) throw new Error("no backend made");
  return { session, backend };
}
