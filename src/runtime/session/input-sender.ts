/**
 * The way into a session: how an input gets from `Session.send` to the turn it joins or
 * starts. Sends run one at a time, each deciding on the state the previous one left. An input
 * waits until the server (and its model) can take it, then goes to the backend, or is held
 * back where the backend has no queue or cannot steer (`HeldInputs`); the admission event
 * names its turn, or past a bound the turn is guessed.
 */
import { LRUCache } from "lru-cache";
import { resolveAttachments } from "../../backends/attachments.js";
import { mintInputId, type SessionBackend } from "../../backends/backend.js";
import { forTheModel } from "../../backends/model-attachments.js";
import { UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { turnIdFor } from "../../events/turn-state.js";
import type { Logger } from "../../util/logger.js";
import type { ConnectionWatch } from "./connection-watch.js";
import { type HeldInput, HeldInputs } from "./held-inputs.js";
import { attachmentsOf, type InFlight, type Input, withAttachmentRefs } from "./input.js";
import { promptWithResend } from "./prompt-resend.js";
import { HELD_INPUT_SOURCE } from "./run-state.js";
import type { RunWatch } from "./run-watch.js";
import type { RuntimeEnds } from "./runtime-ends.js";
import { type RuntimeOrigin, runtimeEvent } from "./runtime-events.js";
import type { SendOptions, SessionOptions } from "./session-options.js";
import type { SessionState } from "./session-state.js";
import type { SessionTurns } from "./session-turns.js";
import type { Turn } from "./turn.js";

/** How long `send` waits for the stream to say which turn an input joined. */
const ADMISSION_TIMEOUT_MS = 5_000;
/** Late admissions whose attachments are kept for them: a few, the oldest dropped. */
const KEPT_LATE_REFS = 20;

/** What the sender is given by its session. */
export interface InputSenderContext {
  directory: string;
  logger: Logger;
  options: Pick<SessionOptions, "beforeSend" | "maxAttachmentBytes" | "steerFallback">;
  /** The session's backend (made after the sender). */
  backend: () => SessionBackend;
  /**
   * What runs, whether the session is closed; the inputs sent upstream are noted in it, and
   * its changes (an admission among them) are waited on.
   */
  state: SessionState;
  /** Re-armed once an input sent upstream waits for its turn. */
  watch: RunWatch;
  /** Whether the streams came back (the server may have restarted) before a send. */
  connection: ConnectionWatch;
  turns: SessionTurns;
  ends: RuntimeEnds;
  /** Hands an event the runtime originates to the session. */
  dispatch: (event: CanonicalEvent) => void;
}

export class InputSender {
  readonly #context: InputSenderContext;
  /** Queued inputs held back because the backend has no queue. */
  readonly held: HeldInputs;
  /** Sends between their call and their return (an idle release must wait for them). */
  #sendsUnderWay = 0;
  /** Sends run one at a time: each decides on the state the previous one left. */
  #sending: Promise<void> = Promise.resolve();
  /** The input being handed to the backend now. */
  #inFlight: InFlight | undefined;
  /**
   * The attachment references of inputs whose admission did not come within the bound (a
   * loaded server or stream), by input id, until it comes: their admission carries them too.
   * Bounded: an admission that never comes is forgotten with the oldest.
   */
  readonly #lateRefs = new LRUCache<string, string[]>({ max: KEPT_LATE_REFS });
  /** Aborts the waits of the send under way when the session closes. */
  #sendAbort: AbortController | undefined;

  constructor(context: InputSenderContext) {
    this.#context = context;
    this.held = new HeldInputs({
      free: () => context.state.free,
      send: (held) => this.#sendHeld(held),
      failed: (held, error) => this.#failHeld(held, error),
    });
  }

  /** Whether a send is under way, or an input is held: the session is not idle. */
  get busy(): boolean {
    return this.#sendsUnderWay > 0 || this.held.size > 0;
  }

  /** An admission of the input in flight, with the references of its attachments. */
  withAttachmentRefs(event: CanonicalEvent): CanonicalEvent {
    if (event.type === "input.admitted" && event.data.files === undefined) {
      const late = this.#lateRefs.get(event.data.inputId);
      if (late !== undefined) {
        this.#lateRefs.delete(event.data.inputId);
        return { ...event, data: { ...event.data, files: late } };
      }
    }
    return withAttachmentRefs(event, this.#inFlight);
  }

  /** `Session.send`, once its delivery was checked. */
  async send(text: string, options: SendOptions): Promise<Turn> {
    this.#sendsUnderWay++;
    try {
      const input = await this.#inputOf(text, options);
      // What the backend cannot take is refused now, not when a held input is released.
      this.#context.backend().check({ text, delivery: input.delivery, ...attachmentsOf(input) });
      const previous = this.#sending;
      let done: () => void = () => {};
      this.#sending = new Promise((resolve) => {
        done = resolve;
      });
      try {
        await previous;
        return await this.#sendNow(input);
      } finally {
        done();
      }
    } finally {
      this.#sendsUnderWay--;
    }
  }

  /** `Session.cancelInput`: drops a held input, or says why it cannot. */
  cancel(inputId: string): void {
    const { backend, ends, turns, state } = this.#context;
    state.throwIfClosed();
    const { kind, capabilities } = backend();
    if (!capabilities.cancelQueued) {
      throw new UsageError(
        `the ${kind} backend cannot take back a queued input: it waits in the server's own queue, which has no way to remove one (interrupt stops the running turn instead)`,
      );
    }
    if (this.held.take(inputId) !== undefined) {
      ends.cancelled(inputId);
      return;
    }
    throw new UsageError(
      turns.ofInput(inputId) === undefined
        ? `no queued input ${inputId} in session ${state.sessionId}; take the id from its input.admitted event`
        : `input ${inputId} was sent already (or is not queued); only a queued input not yet sent can be cancelled`,
    );
  }

  /** The session closes: a send waiting before it went out gives up; resolves once it has. */
  async close(reason: Error): Promise<void> {
    this.#sendAbort?.abort(reason);
    await this.#sending;
  }

  async #inputOf(text: string, options: SendOptions): Promise<Input> {
    const maxBytes = this.#context.options.maxAttachmentBytes;
    const files =
      options.files === undefined
        ? undefined
        : await resolveAttachments(options.files, {
            directory: this.#context.directory,
            ...(maxBytes === undefined ? {} : { maxBytes }),
          });
    // What cannot reach the model is refused now, before anything is sent.
    if (files !== undefined) forTheModel(files);
    return {
      text,
      delivery: options.delivery,
      ...(files === undefined ? {} : { files }),
      ...(options.agents === undefined ? {} : { agents: options.agents }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
  }

  async #sendNow(input: Input): Promise<Turn> {
    const context = this.#context;
    context.state.throwIfClosed(); // closed while an earlier send was under way
    await this.#ready(input);
    const backend = context.backend();
    const run = context.state.run;
    const busy = context.state.running || this.held.size > 0;
    if (busy && input.delivery === "steer" && !backend.capabilities.nativeSteer) {
      const supersede = context.options.steerFallback === "supersede";
      const turn = this.#hold(input, supersede ? "front" : "back");
      if (supersede && run.running !== undefined) await backend.interrupt(input.signal);
      return turn;
    }
    if (busy && input.delivery === "queue" && !backend.capabilities.nativeQueue) {
      return this.#hold(input, "back");
    }
    const running = run.running === undefined ? undefined : context.turns.byId(run.running);
    // Sends run one at a time, so the admission of this text while it is in flight is its own.
    this.#inFlight = { text: input.text, refs: (input.files ?? []).map((file) => file.ref) };
    const refs = this.#inFlight.refs;
    let inputId: string;
    let known: Turn | undefined;
    try {
      ({ inputId } = await promptWithResend(backend, input, {
        // The server is back (and can take the prompt) before it is sent again.
        ready: () => this.#ready(input),
        admitted: (id) => context.turns.ofInput(id) !== undefined,
        signal: input.signal,
      }));
      // The admission event names the turn (a steer that came too late starts its own).
      known = await this.#admitted(inputId, input.signal);
    } finally {
      this.#inFlight = undefined;
    }
    if (known !== undefined) {
      // Admitted but not started yet: the session is busy with it until its turn starts.
      const waits = known.state === "pending" && !context.state.run.awaiting.includes(inputId);
      if (waits) this.#awaiting(inputId);
      return known;
    }
    context.logger.warn("no admission seen for the input; guessing its turn", {
      sessionId: context.state.sessionId,
      inputId,
    });
    if (refs.length > 0) this.#lateRefs.set(inputId, refs);
    const turn =
      input.delivery === "steer" && running !== undefined && running.state !== "ended"
        ? running
        : context.turns.byId(turnIdFor(inputId));
    context.turns.setInput(inputId, turn);
    if (turn !== running) this.#awaiting(inputId);
    else context.watch.update();
    return turn;
  }

  /** `inputId` went to the backend and waits for a turn to take it: the session is watched. */
  #awaiting(inputId: string): void {
    this.#context.state.awaiting(inputId);
    this.#context.watch.update();
  }

  /**
   * Waits for what a send needs (the server, the model, the live stream); `close()` ends it.
   * Resolves true when the streams had been away and came back (the server may have restarted).
   */
  async #ready(input: Input): Promise<boolean> {
    const callerSignal = input.signal;
    const files = input.files ?? [];
    const { options, connection, state } = this.#context;
    const closing = new AbortController();
    this.#sendAbort = closing;
    const signal =
      callerSignal === undefined ? closing.signal : AbortSignal.any([callerSignal, closing.signal]);
    let reconnected = connection.takeReconnected();
    try {
      await options.beforeSend?.({ reconnected, signal, files });
      await this.#context.backend().ready(signal);
      // The streams came back during that wait: the server may have restarted meanwhile.
      if (connection.takeReconnected()) {
        reconnected = true;
        await options.beforeSend?.({ reconnected: true, signal, files });
      }
    } catch (error) {
      state.throwIfClosed();
      throw error;
    }
    state.throwIfClosed();
    return reconnected;
  }

  /** The turn the stream says `inputId` belongs to, once it says so (bounded). */
  async #admitted(inputId: string, signal: AbortSignal | undefined): Promise<Turn | undefined> {
    const { turns, state } = this.#context;
    // Past the bound the turn is unknown: the caller guesses.
    await state.until(() => turns.ofInput(inputId) !== undefined || state.closed, {
      what: "waiting for the input's admission",
      timeoutMs: ADMISSION_TIMEOUT_MS,
      signal,
    });
    return turns.ofInput(inputId);
  }

  /** Keeps a queued input back until the session is free, and says so on the stream. */
  #hold(input: Input, where: "front" | "back"): Turn {
    const { turns, dispatch } = this.#context;
    const inputId = mintInputId();
    const turn = turns.byId(turnIdFor(inputId));
    turns.setInput(inputId, turn);
    // The caller's signal was for the send; a held input outlives it.
    const { signal: _signal, ...kept } = input;
    this.held.hold({ inputId, input: kept }, where);
    dispatch(
      runtimeEvent(this.#origin, turn.id, HELD_INPUT_SOURCE, "input.admitted", {
        inputId,
        text: input.text,
        delivery: "queue",
        ...(input.files === undefined ? {} : { files: input.files.map((file) => file.ref) }),
      }),
    );
    return turn;
  }

  /** Hands a held input to the backend: it waits for its turn from now on. */
  async #sendHeld({ inputId, input }: HeldInput): Promise<void> {
    this.#awaiting(inputId);
    const request = { text: input.text, delivery: "queue" as const, ...attachmentsOf(input) };
    await this.#context.backend().prompt({ ...request, inputId, announced: true });
  }

  /** A held input could not be sent: its turn starts and fails, so whoever waits on it hears. */
  #failHeld({ inputId }: HeldInput, error: unknown): void {
    const { state, logger, ends } = this.#context;
    if (state.closed) return;
    logger.warn("a queued input could not be sent", { sessionId: state.sessionId, error });
    ends.sendFailed(inputId, error);
  }

  /** Who originates the events the sender adds (the held inputs' admissions). */
  get #origin(): RuntimeOrigin {
    return { sessionId: this.#context.state.sessionId, backend: this.#context.backend().kind };
  }
}
