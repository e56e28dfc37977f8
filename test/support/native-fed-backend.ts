/**
 * A serve backend whose native `/api` frames a unit test feeds, normalised by the real `/api`
 * normaliser in the order 1.18.33 sends them: admissions (held back on demand, as a loaded
 * server or stream delays them), deliveries and steps.
 */
import type { BackendContext, PromptRequest } from "../../src/backends/backend.js";
import { initialApiState, normalizeApiEvent } from "../../src/events/normalize-api.js";
import { parseApiEvent } from "../../src/opencode-protocol/api/events.js";
import type { SessionOptions } from "../../src/runtime/session/session.js";
import { ServeShapedBackend, serveShapedSession } from "./serve-shaped-backend.js";

const TOKENS = { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } };

/** A serve backend whose native `/api` frames the test feeds, normalised as the real one does. */
export class NativeFedBackend extends ServeShapedBackend {
  readonly #session: string;
  #state: ReturnType<typeof initialApiState>;
  #frames = 0;
  #inputs = 0;
  /** The next prompt's admission is held back (a loaded server or stream), until `admitHeld`. */
  holdNextAdmission = false;
  #heldAdmission: Record<string, unknown> | undefined;

  constructor(context: BackendContext, session: string) {
    super(context);
    this.#session = session;
    this.#state = initialApiState(session);
  }

  /** Admitted upstream at once, as `POST /api/session/{id}/prompt` does. */
  override async prompt(request: PromptRequest): Promise<{ inputId: string }> {
    const messageID = `msg_${++this.#inputs}`;
    const admission = { messageID, prompt: { text: request.text }, delivery: request.delivery };
    if (this.holdNextAdmission) this.#heldAdmission = admission;
    else this.feed("session.next.prompt.admitted", admission);
    this.holdNextAdmission = false;
    return { inputId: messageID };
  }

  admitHeld(): void {
    if (this.#heldAdmission !== undefined) {
      this.feed("session.next.prompt.admitted", this.#heldAdmission);
    }
    this.#heldAdmission = undefined;
  }

  /** The runner delivered `messageID` (it starts a turn, or joins the running one). */
  prompted(messageID: string, delivery: "steer" | "queue"): void {
    this.feed("session.next.prompted", { messageID, prompt: { text: messageID }, delivery });
  }

  step(id: string, finish = "stop"): void {
    const model = { id: "scripted", providerID: "demo" };
    this.feed("session.next.step.started", { assistantMessageID: id, agent: "build", model });
    this.feed("session.next.step.ended", {
      assistantMessageID: id,
      finish,
      cost: 0,
      tokens: TOKENS,
    });
  }

  feed(type: string, data: Record<string, unknown>): void {
    const raw = {
      id: `evt_${++this.#frames}`,
      type,
      data: { timestamp: 1, sessionID: this.#session, ...data },
    };
    const { state, events } = normalizeApiEvent(this.#state, parseApiEvent(raw));
    this.#state = state;
    for (const event of events) this.context.sink(event);
  }
}

/** A session on a `NativeFedBackend`. */
export const nativeFedApiSession = (session: string, options: Partial<SessionOptions> = {}) =>
  serveShapedSession(session, options, (context) => new NativeFedBackend(context, session));
