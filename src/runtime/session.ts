/**
 * A live session, on whichever backend runs it: `send` with an explicit delivery, the turns
 * it joins or starts, interrupt, model switch, and the canonical event stream (kept events
 * from a seq, then live ones). The backend publishes canonical events; the session numbers
 * and keeps them, hands each to its turn, watches for stalls, and holds back queued inputs
 * where the backend has no queue of its own.
 *
 * The session coordinates; the parts live beside it: what runs (`run-state.ts`, a reducer over
 * the events), pending asks and their timers (`pending-asks.ts`), held inputs
 * (`held-inputs.ts`), turns by id (`session-turns.ts`), subagents' child sessions
 * (`child-sessions.ts`).
 */
import { resolveAttachments } from "../backends/attachments.js";
import {
  type BackendConnection,
  type BackendKind,
  mintInputId,
  type SessionBackend,
} from "../backends/backend.js";
import type { Capabilities } from "../backends/capabilities.js";
import { UsageError } from "../errors.js";
import type {
  CanonicalEvent,
  CanonicalEventOf,
  CanonicalType,
  ConnectionState,
  ModelRef,
} from "../events/canonical.js";
import { turnIdFor } from "../events/turn-state.js";
import type { ServerExit } from "../server/server-handle.js";
import { throwIfAborted } from "../util/abort.js";
import { ChangeNotifier } from "../util/change-notifier.js";
import { describeError } from "../util/describe-error.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { RecentSet } from "../util/recent-set.js";
import { type ChildSession, ChildSessions } from "./child-sessions.js";
import { ConnectionWatch, connectionLostMessage } from "./connection-watch.js";
import { EventLog } from "./event-log.js";
import { type HeldInput, HeldInputs } from "./held-inputs.js";
import { attachmentsOf, type InFlight, type Input, withAttachmentRefs } from "./input.js";
import {
  checkPermissionReply,
  checkQuestionAnswers,
  type PendingAsk,
  PendingAsks,
} from "./pending-asks.js";
import {
  initialRunState,
  isRunning,
  type RunState,
  reduceRunState,
  watchPhase,
  withAwaiting,
  withoutAwaiting,
} from "./run-state.js";
import {
  connectionChangedEvent,
  type RuntimeOrigin,
  runtimeEvent,
  serverExitMessage,
} from "./runtime-events.js";
import type {
  BackendFactory,
  BeforeSendContext,
  SendOptions,
  SessionOptions,
  SessionStats,
} from "./session-options.js";
import { KNOWN_ENDED_TURNS, SessionTurns } from "./session-turns.js";
import type { Turn } from "./turn.js";
import { DEFAULT_WATCHDOG, type Stall, Watchdog } from "./watchdog.js";

export type { ChildSession } from "./child-sessions.js";
export type { Delivery } from "./input.js";
export type { AskTimeout, PendingAsk } from "./pending-asks.js";
export type {
  BackendFactory,
  BeforeSendContext,
  SendOptions,
  SessionOptions,
  SessionStats,
} from "./session-options.js";

/** How long `send` waits for the stream to say which turn an input joined. */
const ADMISSION_TIMEOUT_MS = 5_000;

/** Why the runtime ends a turn `failed` itself: where it says so from, its reason, the message. */
interface RuntimeFailure {
  source: string;
  reason: string;
  message: string;
}

export class Session implements AsyncDisposable {
  readonly id: string;
  readonly directory: string;
  readonly #backend: SessionBackend;
  readonly #logger: Logger;
  readonly #steerFallback: "queue" | "supersede";
  readonly #log: EventLog;
  readonly #children: ChildSessions;
  readonly #turns: SessionTurns;
  readonly #watchdog: Watchdog;
  /** What runs, from the events alone: the watchdog and the held inputs decide on it. */
  #run: RunState = initialRunState;
  /** Queued inputs the runtime holds back because the backend has no queue. */
  readonly #held: HeldInputs;
  /** The input being handed to the backend now (sends run one at a time). */
  #inFlight: InFlight | undefined;
  readonly #maxAttachmentBytes: number | undefined;
  readonly #beforeSend: ((context: BeforeSendContext) => Promise<void>) | undefined;
  readonly #asks: PendingAsks;
  #closed = false;
  #lastActivity = Date.now();
  /** Sends between their call and their return (an idle release must wait for them). */
  #sendsInFlight = 0;
  /** Sends run one at a time: each decides on the state the previous one left. */
  #sending: Promise<void> = Promise.resolve();
  /** Wakes whoever waits for an input's admission. */
  readonly #changes = new ChangeNotifier();
  /**
   * Turns the runtime ended itself: late native events of theirs are dropped. Only the latest
   * are kept: the next run waits until the backend stopped the abandoned one, so late events
   * come from the last few turns, and a long session does not grow with its stalls.
   */
  readonly #abandoned = new RecentSet<string>(KNOWN_ENDED_TURNS);
  /** The backend is stopping an abandoned run: held inputs wait for it. */
  #abandoning: Promise<void> | undefined;
  /** Whether the native streams reach the server, and the bound on an outage while busy. */
  readonly #connection: ConnectionWatch;
  #connectionChanges = 0;
  /** Aborts the waits of the send under way (one at a time) when the session closes. */
  #sendAbort: AbortController | undefined;

  /** @internal Sessions come from `Bridge.createSession` / `openSession`, not from users. */
  constructor(id: string, backend: BackendFactory, options: SessionOptions) {
    this.id = id;
    this.directory = options.directory;
    this.#logger = options.logger ?? silentLogger;
    this.#steerFallback = options.steerFallback ?? "queue";
    this.#maxAttachmentBytes = options.maxAttachmentBytes;
    this.#beforeSend = options.beforeSend;
    this.#connection = new ConnectionWatch(options.connectionLostAfterMs, (state) =>
      this.#connectionLost(state),
    );
    this.#watchdog = new Watchdog({ ...DEFAULT_WATCHDOG, ...options.watchdog }, (stall) =>
      this.#stalled(stall),
    );
    const store = options.store;
    this.#log = new EventLog({
      ...(store === undefined ? {} : { store: { store, sessionId: id } }),
      logger: this.#logger,
    });
    this.#children = new ChildSessions({
      parentId: id,
      parentLog: this.#log,
      store,
      logger: this.#logger,
    });
    this.#turns = new SessionTurns(this.#log);
    this.#asks = new PendingAsks({
      sessionId: id,
      logger: this.#logger,
      timeout: options.askTimeout,
      turnEnded: (turnId) => this.#turns.hasEnded(turnId),
      answer: (answer) =>
        answer.kind === "permission"
          ? this.replyPermission(answer.requestId, answer.reply, { message: answer.message })
          : this.rejectQuestion(answer.requestId),
    });
    this.#held = new HeldInputs({
      free: () => !this.#closed && this.#abandoning === undefined && !isRunning(this.#run),
      send: (held) => this.#sendHeld(held),
      failed: (held, error) => this.#failHeld(held, error),
    });
    const resume = options.resume;
    if (resume !== undefined) this.#seed(resume.events);
    this.#backend = backend({
      sessionId: id,
      directory: options.directory,
      logger: this.#logger,
      sink: (event) => this.#fromBackend(event),
      childSink: (event) => this.#children.log(event.sessionId).append(event),
      connection: (connection) => this.#connectionChanged(connection),
      ...(resume === undefined ? {} : { resume }),
    });
    // An adopted turn is watched like any other: silence from a run that died upstream ends it.
    if (resume !== undefined) this.#watch();
    const running = this.#run.running;
    if (resume !== undefined && running !== undefined && !this.capabilities.durableResume) {
      // What happened upstream while nobody followed is gone on this backend.
      this.#failTurn(running, {
        source: "runtime.adopt",
        reason: "bridge-restarted",
        message: `the bridge restarted while this turn ran; the ${this.#backend.kind} backend cannot replay what it missed`,
      });
    }
  }

  /** The kept events of an adopted session: its turns and state as they were. */
  #seed(events: readonly CanonicalEvent[]): void {
    this.#log.seed(events);
    for (const event of events) {
      this.#track(event);
      this.#turns.deliver(event);
    }
  }

  /** What the backend of this session can do; what it cannot is emulated or refused. */
  get capabilities(): Capabilities {
    return this.#backend.capabilities;
  }

  get backend(): BackendKind {
    return this.#backend.kind;
  }

  /** The OpenCode session id (a subprocess session has one only after its first turn). */
  get upstreamId(): string | undefined {
    return this.#backend.upstreamId;
  }

  /** Since when nothing has run or waited (ms since the epoch); undefined while busy. */
  get idleSince(): number | undefined {
    const busy =
      this.#sendsInFlight > 0 || isRunning(this.#run) || this.#held.size > 0 || this.#asks.size > 0;
    return busy ? undefined : this.#lastActivity;
  }

  /**
   * Whether the session's native streams reach the server (a UI shows "reconnecting…" from
   * it); each change is also published as an ephemeral `connection.changed` event.
   */
  get connection(): ConnectionState {
    return this.#connection.state;
  }

  /** The turn that is running now, if any. */
  get runningTurn(): Turn | undefined {
    const running = this.#run.running;
    return running === undefined ? undefined : this.#turns.byId(running);
  }

  /**
   * Sends an input. `steer` joins the running turn (the same Turn object is returned) and
   * starts one when idle; `queue` becomes the next turn. Where the backend cannot steer,
   * `steer` is queued or supersedes the running turn (`steerFallback`).
   */
  async send(text: string, options: SendOptions): Promise<Turn> {
    if (options.delivery !== "steer" && options.delivery !== "queue") {
      throw new UsageError(
        `delivery must be "steer" or "queue", got ${JSON.stringify(options.delivery)}`,
      );
    }
    this.#throwIfClosed();
    this.#sendsInFlight++;
    try {
      return await this.#sendChecked(text, options);
    } finally {
      this.#sendsInFlight--;
    }
  }

  async #sendChecked(text: string, options: SendOptions): Promise<Turn> {
    const files =
      options.files === undefined
        ? undefined
        : await resolveAttachments(options.files, {
            directory: this.directory,
            ...(this.#maxAttachmentBytes === undefined
              ? {}
              : { maxBytes: this.#maxAttachmentBytes }),
          });
    const input: Input = {
      text,
      delivery: options.delivery,
      ...(files === undefined ? {} : { files }),
      ...(options.agents === undefined ? {} : { agents: options.agents }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
    // What the backend cannot take is refused now, not when a held input is released.
    this.#backend.check({ text, delivery: input.delivery, ...attachmentsOf(input) });
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
  }

  async #sendNow(input: Input): Promise<Turn> {
    this.#throwIfClosed(); // closed while an earlier send was under way
    await this.#beforeSending(input.signal);
    const capabilities = this.#backend.capabilities;
    const busy = isRunning(this.#run) || this.#held.size > 0;
    if (busy && input.delivery === "steer" && !capabilities.nativeSteer) {
      const supersede = this.#steerFallback === "supersede";
      const turn = this.#hold(input, supersede ? "front" : "back");
      if (supersede && this.#run.running !== undefined) await this.interrupt(input);
      return turn;
    }
    if (busy && input.delivery === "queue" && !capabilities.nativeQueue) {
      return this.#hold(input, "back");
    }
    const running = this.runningTurn;
    // Sends run one at a time, so the admission of this text while it is in flight is its own.
    this.#inFlight = { text: input.text, refs: (input.files ?? []).map((file) => file.ref) };
    let inputId: string;
    let known: Turn | undefined;
    try {
      ({ inputId } = await this.#backend.prompt(input));
      // The admission event names the turn (a steer that came too late starts its own).
      known = await this.#admitted(inputId, input.signal);
    } finally {
      this.#inFlight = undefined;
    }
    if (known !== undefined) {
      // Admitted but not started yet: the session is busy with it until its turn starts.
      if (known.state === "pending" && !this.#run.awaiting.includes(inputId)) {
        this.#awaitTurn(inputId);
      }
      return known;
    }
    this.#logger.warn("no admission seen for the input; guessing its turn", {
      sessionId: this.id,
      inputId,
    });
    const turn =
      input.delivery === "steer" && running !== undefined && running.state !== "ended"
        ? running
        : this.#turns.byId(turnIdFor(inputId));
    this.#turns.setInput(inputId, turn);
    if (turn !== running) this.#run = withAwaiting(this.#run, inputId);
    this.#watch();
    return turn;
  }

  /** Waits for what a send needs (the server, the model, the live stream); `close()` ends it. */
  async #beforeSending(callerSignal: AbortSignal | undefined): Promise<void> {
    const closing = new AbortController();
    this.#sendAbort = closing;
    const signal =
      callerSignal === undefined ? closing.signal : AbortSignal.any([callerSignal, closing.signal]);
    try {
      await this.#beforeSend?.({ reconnected: this.#connection.takeReconnected(), signal });
      await this.#backend.ready(signal);
      // The streams came back during that wait: the server may have restarted meanwhile.
      if (this.#connection.takeReconnected()) {
        await this.#beforeSend?.({ reconnected: true, signal });
      }
    } catch (error) {
      this.#throwIfClosed();
      throw error;
    }
    this.#throwIfClosed();
  }

  /** The turn the stream says `inputId` belongs to, once it says so (bounded). */
  async #admitted(inputId: string, signal: AbortSignal | undefined): Promise<Turn | undefined> {
    // Past the bound the turn is unknown: the caller guesses.
    await this.#changes.until(() => this.#turns.ofInput(inputId) !== undefined || this.#closed, {
      what: "waiting for the input's admission",
      timeoutMs: ADMISSION_TIMEOUT_MS,
      signal,
    });
    return this.#turns.ofInput(inputId);
  }

  /** `inputId` went to the backend and waits for its turn to start: the watchdog watches. */
  #awaitTurn(inputId: string): void {
    this.#run = withAwaiting(this.#run, inputId);
    this.#watch();
  }

  #throwIfClosed(): void {
    if (this.#closed) throw new UsageError(`session ${this.id} is closed; open it again to send`);
  }

  /**
   * A subagent's child session (`subagent.started` names it): its own canonical events, kept
   * and then live, like `events()`. Its asks also appear on this session's turn.
   */
  child(childSessionId: string): ChildSession {
    return this.#children.get(childSessionId);
  }

  /** Asks waiting for an answer, oldest first (a UI shows them; the turn waits on them). */
  get pendingAsks(): PendingAsk[] {
    return this.#asks.list();
  }

  /**
   * Answers a permission ask: `once` allows this call, `always` also the same kind of call for
   * the rest of the session, `reject` refuses it (the tool fails; `message` tells the model why).
   */
  async replyPermission(
    requestId: string,
    reply: "once" | "always" | "reject",
    options: { message?: string; signal?: AbortSignal } = {},
  ): Promise<void> {
    checkPermissionReply(reply);
    this.#pendingAsk(requestId, "permission");
    await this.#backend.replyPermission(
      { requestId, reply, ...(options.message === undefined ? {} : { message: options.message }) },
      options.signal,
    );
  }

  /** Answers a question ask: the chosen option labels (or free text), one list per question. */
  async answerQuestion(
    requestId: string,
    answers: string[][],
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    checkQuestionAnswers(answers);
    this.#pendingAsk(requestId, "question");
    await this.#backend.answerQuestion(requestId, answers, options.signal);
  }

  /** Declines a question ask (the question tool fails; the model is told). */
  async rejectQuestion(requestId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#pendingAsk(requestId, "question");
    await this.#backend.rejectQuestion(requestId, options.signal);
  }

  #pendingAsk(requestId: string, kind: PendingAsk["kind"]): void {
    this.#throwIfClosed();
    this.#asks.waiting(requestId, kind);
  }

  /** Interrupts the running turn; it ends `interrupted` and the session stays usable. */
  async interrupt(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.#backend.interrupt(options.signal);
  }

  /** Switches the model for the next steps. */
  async switchModel(model: ModelRef, options: { signal?: AbortSignal } = {}): Promise<void> {
    throwIfAborted(options.signal, "switching the model");
    await this.#backend.switchModel(model, options.signal);
  }

  /** Kept events after `after` (a bridge seq), then live ones; ends when the session closes. */
  events(options: { after?: number; signal?: AbortSignal } = {}): AsyncIterable<CanonicalEvent> {
    return this.#log.read(options.after ?? 0, options.signal);
  }

  /** Durable events kept so far. */
  transcript(): CanonicalEvent[] {
    return this.#log.durable();
  }

  /** Counts of what the session could not hand out whole (see docs/events.md, "Deltas"). */
  stats(): SessionStats {
    return { deltas: this.#backend.deltaStats?.() ?? { incompleteParts: 0, droppedDeltas: 0 } };
  }

  /**
   * Stops following the session (the upstream session is kept). Held inputs never ran: their
   * turns end `failed` (`session-closed`); so does a turn still running, which nobody follows
   * any more (on a server it may go on upstream).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watchdog.stop();
    this.#connection.stop();
    // A send waiting before it went out gives up; one waiting for its admission stops waiting.
    this.#sendAbort?.abort(new UsageError(`session ${this.id} is closed`));
    this.#changes.notify();
    this.#asks.close();
    await this.#sending;
    await this.#backend.close();
    const neverStarted = [...this.#run.awaiting, ...this.#held.takeAll().map((h) => h.inputId)];
    this.#failTurns(this.#run.running, neverStarted, false, {
      source: "runtime.close",
      reason: "session-closed",
      message: "the session was closed before the turn ended; it may go on upstream",
    });
    this.#log.close();
    this.#children.close();
  }

  /** `await using session = …` closes it at the end of the block (same as `close()`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Keeps a queued input back until the session is free, and says so on the stream. */
  #hold(input: Input, where: "front" | "back"): Turn {
    const inputId = mintInputId();
    const turn = this.#turns.byId(turnIdFor(inputId));
    this.#turns.setInput(inputId, turn);
    // The caller's signal was for the send; a held input outlives it.
    const { signal: _signal, ...kept } = input;
    this.#held.hold({ inputId, input: kept }, where);
    this.#publish(turn.id, "runtime.queue", "input.admitted", {
      inputId,
      text: input.text,
      delivery: "queue",
      ...(input.files === undefined ? {} : { files: input.files.map((file) => file.ref) }),
    });
    return turn;
  }

  /** Hands a held input to the backend: it waits for its turn from now on. */
  async #sendHeld({ inputId, input }: HeldInput): Promise<void> {
    this.#awaitTurn(inputId);
    const request = { text: input.text, delivery: "queue" as const, ...attachmentsOf(input) };
    await this.#backend.prompt({ ...request, inputId, announced: true });
  }

  /** A held input could not be sent: its turn starts and fails, so whoever waits on it hears. */
  #failHeld({ inputId }: HeldInput, error: unknown): void {
    if (this.#closed) return;
    this.#logger.warn("a queued input could not be sent", { sessionId: this.id, error });
    this.#failTurns(undefined, [inputId], false, {
      source: "runtime.queue",
      reason: "send-failed",
      message: describeError(error),
    });
  }

  /** An event from the backend: dropped when it belongs to a turn the runtime already ended. */
  #fromBackend(event: CanonicalEvent): void {
    if (event.turnId !== undefined && this.#abandoned.has(event.turnId)) {
      this.#logger.debug("dropped a late event of a stalled turn", {
        sessionId: this.id,
        type: event.type,
      });
      return;
    }
    this.#dispatch(withAttachmentRefs(event, this.#inFlight));
  }

  #dispatch(event: CanonicalEvent): void {
    this.#lastActivity = Date.now();
    // The cursor kept with an event is the native seq *before* the one it came from: one native
    // event can give several canonical ones (a step's end and the turn's), and a crash between
    // them must not skip the rest. A resume re-reads that native event; what was kept of it is
    // dropped by id.
    const cursor = event.native?.seq === undefined ? undefined : String(event.native.seq - 1);
    const stored = this.#log.append(event, cursor);
    if (stored === undefined) return; // delivered again after a resume: kept already
    this.#track(event);
    this.#turns.deliver(stored);
    this.#changes.notify();
    if (this.#closed) return;
    this.#watch();
    if (event.type === "turn.ended") this.#held.release();
  }

  /** Follows what runs and what is asked, from the events alone. */
  #track(event: CanonicalEvent): void {
    this.#asks.track(event);
    this.#run = reduceRunState(this.#run, event);
  }

  /**
   * @internal The bridge tells its sessions; not for users.
   * The server died (it is being restarted): the running turn, an input waiting to start and
   * the held ones end `failed` (`server-exited`) with the exit and the server's last lines.
   */
  serverExited(exit: ServerExit): void {
    if (this.#closed) return;
    const running = this.#run.running;
    const waiting = [...this.#run.awaiting];
    const held = this.#held.takeAll().map((entry) => entry.inputId);
    if (running !== undefined || waiting.length > 0) {
      void this.#backend.abandonTurn().catch(() => {}); // its run died with the server
    }
    this.#failTurns(running, [...waiting, ...held], true, {
      source: "server.exit",
      reason: "server-exited",
      message: serverExitMessage(exit),
    });
  }

  /**
   * Arms what watches a busy session: the stall watchdog while the streams reach the server;
   * while they do not, silence says nothing about the run, and the connection-lost bound
   * takes its place.
   */
  #watch(): void {
    this.#connection.watch(!this.#closed && isRunning(this.#run));
    if (!this.#connection.connected) this.#watchdog.stop();
    else this.#watchdog.update(watchPhase(this.#run, this.#backend.capabilities.liveToolCalls));
  }

  /** The backend's streams lost the server, or reached it again: say so, and watch accordingly. */
  #connectionChanged(report: BackendConnection): void {
    if (this.#closed) return;
    const state = this.#connection.report(report);
    if (state === undefined) return;
    if (state.state === "connected") {
      this.#logger.info("the session's streams reach the server again", { sessionId: this.id });
    } else {
      this.#logger.warn("the session's streams cannot reach the server; reconnecting", {
        sessionId: this.id,
        attempt: state.attempt,
        reason: state.reason,
      });
    }
    // Ephemeral, so not dispatched: it is no activity of the run and no transcript keeps it.
    this.#log.append(connectionChangedEvent(this.#origin, ++this.#connectionChanges, state));
    this.#watch();
  }

  /**
   * The streams stayed away for the connection-lost bound: the running turn and the inputs
   * waiting to start end `failed` (`connection-lost`), and the upstream run is asked to stop.
   * The streams go on reconnecting; late events of these turns are dropped.
   */
  #connectionLost(state: ConnectionState): void {
    if (this.#closed || !isRunning(this.#run)) return;
    const { running, awaiting } = this.#run;
    const message = connectionLostMessage(state);
    this.#logger.warn("connection lost; ending the turn", { sessionId: this.id, message });
    this.#stopAbandonedRun("stopping the run after a lost connection failed");
    this.#failTurns(running, [...awaiting], true, {
      source: "runtime.connection",
      reason: "connection-lost",
      message,
    });
  }

  /** The watchdog fired: end the turn `failed` / `stalled`, and stop the upstream run. */
  #stalled(stall: Stall): void {
    const { running, awaiting } = this.#run;
    const pendingInput = awaiting[0];
    const turnId = running ?? (pendingInput === undefined ? undefined : turnIdFor(pendingInput));
    if (turnId === undefined) return;
    this.#logger.warn("turn stalled", { sessionId: this.id, turnId, kind: stall.kind });
    this.#abandoned.add(turnId);
    this.#stopAbandonedRun("stopping the stalled run failed");
    const neverStarted = running === undefined && pendingInput !== undefined ? [pendingInput] : [];
    this.#failTurns(running, neverStarted, true, {
      source: "watchdog",
      reason: "stalled",
      message: stall.hint,
    });
  }

  /** Asks the backend to stop the run the runtime gave up on; held inputs wait until it has. */
  #stopAbandonedRun(failed: string): void {
    // Released before the upstream run is stopped, a held input would join it.
    this.#abandoning = this.#backend
      .abandonTurn()
      .catch((error: unknown) => this.#logger.warn(failed, { sessionId: this.id, error }))
      .finally(() => {
        this.#abandoning = undefined;
        this.#held.release();
      });
  }

  /**
   * Ends `failed`, for a reason of the runtime's own, the running turn and the turns of inputs
   * that never started one (they wait no longer). `abandon`: late native events of these
   * turns are dropped from now on.
   */
  #failTurns(
    running: string | undefined,
    neverStarted: readonly string[],
    abandon: boolean,
    failure: RuntimeFailure,
  ): void {
    for (const inputId of neverStarted) this.#run = withoutAwaiting(this.#run, inputId);
    if (running !== undefined) {
      if (abandon) this.#abandoned.add(running);
      this.#failTurn(running, failure);
    }
    for (const inputId of neverStarted) {
      const turnId = turnIdFor(inputId);
      if (turnId === running) continue;
      if (abandon) this.#abandoned.add(turnId);
      this.#failTurn(turnId, failure, inputId);
    }
  }

  /**
   * Ends a turn `failed` (its `error.kind` is the reason too). An input that never started a
   * turn (`neverStarted`) gets one opened first, so that exactly one start meets one end.
   */
  #failTurn(turnId: string, failure: RuntimeFailure, neverStarted?: string): void {
    const { source, reason, message } = failure;
    if (neverStarted !== undefined) {
      this.#publish(turnId, source, "turn.started", { inputId: neverStarted });
    }
    this.#publish(turnId, source, "turn.ended", {
      outcome: "failed",
      reason,
      error: { kind: reason, message },
      text: this.#turns.byId(turnId).partialText(),
    });
  }

  /** Publishes an event the runtime itself originates (not derived from a native one). */
  #publish<T extends CanonicalType>(
    turnId: string,
    source: string,
    type: T,
    data: CanonicalEventOf<T>["data"],
  ): void {
    this.#dispatch(runtimeEvent(this.#origin, turnId, source, type, data));
  }

  get #origin(): RuntimeOrigin {
    return { sessionId: this.id, backend: this.#backend.kind };
  }
}
