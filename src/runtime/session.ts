/**
 * A live session, on whichever backend runs it: `send` with an explicit delivery, the turns
 * it joins or starts, interrupt, model switch, and the canonical event stream (kept events
 * from a seq, then live ones). The backend publishes canonical events; the session numbers
 * and keeps them, hands each to its turn, watches for stalls, and holds back queued inputs
 * where the backend has no queue of its own.
 */
import {
  type Attachment,
  type AttachmentSpec,
  resolveAttachments,
} from "../backends/attachments.js";
import {
  type BackendConnection,
  type BackendContext,
  type BackendKind,
  mintInputId,
  type SessionBackend,
} from "../backends/backend.js";
import type { Capabilities } from "../backends/capabilities.js";
import type { DeltaStats } from "../backends/serve/delta-catch-up.js";
import { UsageError } from "../errors.js";
import { canonical } from "../events/build.js";
import type {
  CanonicalEvent,
  CanonicalEventOf,
  CanonicalType,
  ConnectionState,
  ModelRef,
} from "../events/canonical.js";
import { turnIdFor } from "../events/turn-state.js";
import type { ServerExit } from "../server/server-handle.js";
import type { Store } from "../store/store.js";
import { throwIfAborted } from "../util/abort.js";
import { ChangeNotifier } from "../util/change-notifier.js";
import { describeError } from "../util/describe-error.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { RecentSet } from "../util/recent-set.js";
import { ConnectionWatch, connectionLostMessage } from "./connection-watch.js";
import { EventLog } from "./event-log.js";
import { Turn } from "./turn.js";
import { DEFAULT_WATCHDOG, type Stall, Watchdog, type WatchdogBounds } from "./watchdog.js";

export type Delivery = "steer" | "queue";

export interface SendOptions {
  /** Required: the server's own default (steer) is never assumed. */
  delivery: Delivery;
  /**
   * Attachments: local paths (inside the session directory), http(s) or data: URLs, or raw
   * data with a MIME type. Checked and read before anything is sent; the transcript keeps
   * their references (paths, URLs), not their bytes.
   */
  files?: AttachmentSpec[];
  agents?: string[];
  signal?: AbortSignal;
}

/** A subagent's child session, as its parent session follows it. */
export interface ChildSession {
  readonly id: string;
  events(options?: { after?: number; signal?: AbortSignal }): AsyncIterable<CanonicalEvent>;
  transcript(): CanonicalEvent[];
}

/** An ask waiting for an answer. */
export interface PendingAsk {
  kind: "permission" | "question";
  requestId: string;
  turnId?: string;
  /** The `permission.asked` / `question.asked` event (patterns, diff, questions, …). */
  event: CanonicalEvent;
}

/** Answers asks nobody answered in time: permissions with `permission` (default `reject`), questions rejected. */
export interface AskTimeout {
  afterMs: number;
  permission?: "once" | "reject";
}

export interface SessionOptions {
  directory: string;
  logger?: Logger;
  watchdog?: Partial<WatchdogBounds>;
  /**
   * What `steer` does while a turn runs on a backend that cannot steer (`subprocess`):
   * `queue` (default) makes it the next turn, `supersede` interrupts the running turn and
   * runs it right after.
   */
  steerFallback?: "queue" | "supersede";
  /** Answers asks left unanswered this long (default: they wait for as long as it takes). */
  askTimeout?: AskTimeout;
  /** Largest attachment accepted (default 10 MiB). */
  maxAttachmentBytes?: number;
  /**
   * Where durable events are kept (default: in memory, durable ones only: deltas of ended
   * turns are never kept).
   */
  store?: Store;
  /** Awaited before each send: the server is up (again) and knows the model. */
  beforeSend?: (context: BeforeSendContext) => Promise<void>;
  /** Adopting a session kept in the store: its events so far and the upstream cursor. */
  resume?: { events: readonly CanonicalEvent[]; cursor: string | undefined };
  /**
   * How long a turn waits for lost native streams to come back before it ends `failed`
   * (`connection-lost`); default 3 minutes (`DEFAULT_CONNECTION_LOST_AFTER_MS`). The stall
   * watchdog does not run meanwhile.
   */
  connectionLostAfterMs?: number;
}

/** What `beforeSend` is told about the session since the previous send. */
export interface BeforeSendContext {
  /** The streams lost the server and reached it again: it may have restarted. */
  reconnected: boolean;
  /** The send's own signal: aborting it abandons the wait. */
  signal: AbortSignal | undefined;
}

export type { DeltaStats };

/** What a session could not hand out whole, since it started following its upstream session. */
export interface SessionStats {
  deltas: DeltaStats;
}

/** How long `send` waits for the stream to say which turn an input joined. */
const ADMISSION_TIMEOUT_MS = 5_000;

/**
 * How many ended turns the session still knows by id: older ones are forgotten, so that a long
 * session's memory does not grow with its turns (whoever holds a Turn can still read it).
 */
const KNOWN_ENDED_TURNS = 16;

/** Makes the backend of a session, given what the runtime hands every backend. */
export type BackendFactory = (context: BackendContext) => SessionBackend;

/** An input as the session handles it: attachments resolved, delivery checked. */
interface Input {
  text: string;
  delivery: Delivery;
  files?: Attachment[];
  agents?: string[];
  signal?: AbortSignal;
}

interface HeldInput {
  inputId: string;
  input: Input;
}

export class Session implements AsyncDisposable {
  readonly id: string;
  readonly directory: string;
  readonly #backend: SessionBackend;
  readonly #logger: Logger;
  readonly #steerFallback: "queue" | "supersede";
  readonly #log: EventLog;
  /** The canonical events of subagents' child sessions, by child session id. */
  readonly #childLogs = new Map<string, EventLog>();
  readonly #store: Store | undefined;
  readonly #turns = new Map<string, Turn>();
  /** Turn that each input belongs to, once known. */
  readonly #inputs = new Map<string, Turn>();
  /** Ended turns still known, oldest first (at most `KNOWN_ENDED_TURNS`). */
  readonly #ended: Turn[] = [];
  readonly #watchdog: Watchdog;
  /** The turn between its `turn.started` and `turn.ended`. */
  #running: string | undefined;
  #inStep = false;
  /** Tools called and not finished: a tool may run for minutes, which is not a stall. */
  readonly #runningTools = new Set<string>();
  /** Inputs handed to the backend that no turn has taken yet, oldest first. */
  readonly #awaiting: string[] = [];
  /** Queued inputs the runtime holds back because the backend has no queue. */
  readonly #held: HeldInput[] = [];
  #releasing = false;
  /** The input being handed to the backend now (sends run one at a time). */
  #inFlight: { text: string; refs: string[] } | undefined;
  readonly #maxAttachmentBytes: number | undefined;
  readonly #beforeSend: ((context: BeforeSendContext) => Promise<void>) | undefined;
  /** Asks waiting for an answer, by request id. */
  readonly #asks = new Map<string, PendingAsk>();
  readonly #askTimeout: AskTimeout | undefined;
  readonly #askTimers = new Map<string, NodeJS.Timeout>();
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
    this.#askTimeout = options.askTimeout;
    this.#maxAttachmentBytes = options.maxAttachmentBytes;
    this.#beforeSend = options.beforeSend;
    this.#connection = new ConnectionWatch(options.connectionLostAfterMs, (state) =>
      this.#connectionLost(state),
    );
    this.#watchdog = new Watchdog({ ...DEFAULT_WATCHDOG, ...options.watchdog }, (stall) =>
      this.#stalled(stall),
    );
    this.#store = options.store;
    this.#log = new EventLog({
      ...(options.store === undefined ? {} : { store: { store: options.store, sessionId: id } }),
      logger: this.#logger,
    });
    const resume = options.resume;
    if (resume !== undefined) this.#seed(resume.events);
    this.#backend = backend({
      sessionId: id,
      directory: options.directory,
      logger: this.#logger,
      sink: (event) => this.#fromBackend(event),
      childSink: (event) => this.#childLog(event.sessionId).append(event),
      connection: (connection) => this.#connectionChanged(connection),
      ...(resume === undefined ? {} : { resume }),
    });
    // An adopted turn is watched like any other: silence from a run that died upstream ends it.
    if (resume !== undefined) this.#watch();
    if (resume !== undefined && this.#running !== undefined && !this.capabilities.durableResume) {
      // What happened upstream while nobody followed is gone on this backend.
      this.#failTurn(
        this.#running,
        "runtime.adopt",
        "bridge-restarted",
        `the bridge restarted while this turn ran; the ${this.#backend.kind} backend cannot replay what it missed`,
      );
    }
  }

  /** The kept events of an adopted session: its turns and state as they were. */
  #seed(events: readonly CanonicalEvent[]): void {
    this.#log.seed(events);
    for (const event of events) {
      this.#track(event);
      const turn = event.turnId === undefined ? undefined : this.#turnById(event.turnId);
      if ((event.type === "input.admitted" || event.type === "input.delivered") && turn) {
        this.#inputs.set(event.data.inputId, turn);
      }
      if (turn) this.#pushTo(turn, event);
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
      this.#sendsInFlight > 0 ||
      this.#running !== undefined ||
      this.#awaiting.length > 0 ||
      this.#held.length > 0 ||
      this.#asks.size > 0;
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
    return this.#running === undefined ? undefined : this.#turnById(this.#running);
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
    this.#backend.check({ text, delivery: input.delivery, ...attachments(input) });
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
    const options = input;
    // `close()` waits for this send: its waits (server, model, live stream) end when it is called.
    const closing = new AbortController();
    this.#sendAbort = closing;
    const signal =
      options.signal === undefined
        ? closing.signal
        : AbortSignal.any([options.signal, closing.signal]);
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
    const capabilities = this.#backend.capabilities;
    const busy = this.#running !== undefined || this.#awaiting.length > 0 || this.#held.length > 0;
    if (busy && options.delivery === "steer" && !capabilities.nativeSteer) {
      const supersede = this.#steerFallback === "supersede";
      const turn = this.#hold(input, supersede ? "front" : "back");
      if (supersede && this.#running !== undefined) await this.interrupt(options);
      return turn;
    }
    if (busy && options.delivery === "queue" && !capabilities.nativeQueue) {
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
      known = await this.#admitted(inputId, options.signal);
    } finally {
      this.#inFlight = undefined;
    }
    if (known !== undefined) {
      // Admitted but not started yet: the session is busy with it until its turn starts.
      if (known.state === "pending" && !this.#awaiting.includes(inputId)) {
        this.#awaiting.push(inputId);
        this.#watch();
      }
      return known;
    }
    this.#logger.warn("no admission seen for the input; guessing its turn", {
      sessionId: this.id,
      inputId,
    });
    const turn =
      options.delivery === "steer" && running !== undefined && running.state !== "ended"
        ? running
        : this.#turnById(turnIdFor(inputId));
    this.#inputs.set(inputId, turn);
    if (turn !== running) this.#awaiting.push(inputId);
    this.#watch();
    return turn;
  }

  /** The turn the stream says `inputId` belongs to, once it says so (bounded). */
  async #admitted(inputId: string, signal: AbortSignal | undefined): Promise<Turn | undefined> {
    // Past the bound the turn is unknown: the caller guesses.
    await this.#changes.until(() => this.#inputs.has(inputId) || this.#closed, {
      what: "waiting for the input's admission",
      timeoutMs: ADMISSION_TIMEOUT_MS,
      signal,
    });
    return this.#inputs.get(inputId);
  }

  #throwIfClosed(): void {
    if (this.#closed) throw new UsageError(`session ${this.id} is closed; open it again to send`);
  }

  /**
   * A subagent's child session (`subagent.started` names it): its own canonical events, kept
   * and then live, like `events()`. Its asks also appear on this session's turn.
   */
  child(childSessionId: string): ChildSession {
    const known =
      this.#childLogs.has(childSessionId) ||
      this.#log
        .durable()
        .some(
          (event) =>
            event.type === "subagent.started" && event.data.childSessionId === childSessionId,
        );
    if (!known) {
      throw new UsageError(
        `${JSON.stringify(childSessionId)} is not a child session of ${this.id}; ` +
          "take the id from a subagent.started event",
      );
    }
    const log = this.#childLog(childSessionId);
    return {
      id: childSessionId,
      events: (options = {}) => log.read(options.after ?? 0, options.signal),
      transcript: () => log.durable(),
    };
  }

  #childLog(childSessionId: string): EventLog {
    let log = this.#childLogs.get(childSessionId);
    if (log === undefined) {
      // Kept in the store under the child's own id, like any session's: memory stays bounded
      // however much subagents do, and an adopted session still has its children's events.
      const store = this.#store;
      log = new EventLog({
        ...(store === undefined ? {} : { store: { store, sessionId: childSessionId } }),
        logger: this.#logger,
      });
      this.#childLogs.set(childSessionId, log);
      if (this.#closed) log.close();
    }
    return log;
  }

  /** Asks waiting for an answer, oldest first (a UI shows them; the turn waits on them). */
  get pendingAsks(): PendingAsk[] {
    return [...this.#asks.values()];
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
    if (reply !== "once" && reply !== "always" && reply !== "reject") {
      throw new UsageError(
        `reply must be "once", "always" or "reject", got ${JSON.stringify(reply)}`,
      );
    }
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
    const valid =
      Array.isArray(answers) &&
      answers.every(
        (answer) => Array.isArray(answer) && answer.every((x) => typeof x === "string"),
      );
    if (!valid) {
      throw new UsageError(
        'answers is one list of strings per question asked, for example [["yes"]]',
      );
    }
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
    const ask = this.#asks.get(requestId);
    if (ask?.kind !== kind) {
      throw new UsageError(
        `no ${kind} ask ${JSON.stringify(requestId)} is waiting in session ${this.id} ` +
          "(answered already, or not one of this session's)",
      );
    }
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
    for (const timer of this.#askTimers.values()) clearTimeout(timer);
    this.#askTimers.clear();
    await this.#sending;
    await this.#backend.close();
    const message = "the session was closed before the turn ended; it may go on upstream";
    if (this.#running !== undefined) {
      this.#failTurn(this.#running, "runtime.close", "session-closed", message);
    }
    const neverStarted = [
      ...this.#awaiting.splice(0),
      ...this.#held.splice(0).map((h) => h.inputId),
    ];
    for (const inputId of neverStarted) {
      if (turnIdFor(inputId) === this.#running) continue;
      this.#failTurn(turnIdFor(inputId), "runtime.close", "session-closed", message, inputId);
    }
    this.#log.close();
    for (const log of this.#childLogs.values()) log.close();
  }

  /** `await using session = …` closes it at the end of the block (same as `close()`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Keeps a queued input back until the session is free, and says so on the stream. */
  #hold(input: Input, where: "front" | "back"): Turn {
    const inputId = mintInputId();
    const turn = this.#turnById(turnIdFor(inputId));
    this.#inputs.set(inputId, turn);
    // The caller's signal was for the send; a held input outlives it.
    const { signal: _signal, ...kept } = input;
    const held = { inputId, input: kept };
    if (where === "front") this.#held.unshift(held);
    else this.#held.push(held);
    this.#publish(turn.id, "runtime.queue", "input.admitted", {
      inputId,
      text: input.text,
      delivery: "queue",
      ...(input.files === undefined ? {} : { files: input.files.map((file) => file.ref) }),
    });
    return turn;
  }

  /** Hands the next held input to the backend once no turn runs and none waits to start. */
  #releaseHeld(): void {
    if (this.#closed || this.#releasing || this.#abandoning || this.#running !== undefined) return;
    if (this.#awaiting.length > 0) return;
    const next = this.#held.shift();
    if (next === undefined) return;
    this.#releasing = true;
    this.#awaiting.push(next.inputId);
    this.#watch();
    void this.#backend
      .prompt({
        text: next.input.text,
        delivery: "queue",
        inputId: next.inputId,
        announced: true,
        ...attachments(next.input),
      })
      .catch((error: unknown) => this.#failHeld(next.inputId, error))
      .finally(() => {
        this.#releasing = false;
        this.#releaseHeld();
      });
  }

  /** A held input could not be sent: its turn starts and fails, so whoever waits on it hears. */
  #failHeld(inputId: string, error: unknown): void {
    if (this.#closed) return;
    this.#logger.warn("a queued input could not be sent", { sessionId: this.id, error });
    removeFrom(this.#awaiting, inputId);
    this.#failTurn(
      turnIdFor(inputId),
      "runtime.queue",
      "send-failed",
      describeError(error),
      inputId,
    );
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
    this.#dispatch(this.#withAttachmentRefs(event));
  }

  /** The admission of the input in flight, with the references of its attachments. */
  #withAttachmentRefs(event: CanonicalEvent): CanonicalEvent {
    const inFlight = this.#inFlight;
    if (event.type !== "input.admitted" || inFlight === undefined) return event;
    if (inFlight.refs.length === 0 || event.data.files !== undefined) return event;
    if (event.data.text !== inFlight.text) return event;
    return { ...event, data: { ...event.data, files: inFlight.refs } };
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
    const turn = event.turnId === undefined ? undefined : this.#turnById(event.turnId);
    if ((event.type === "input.admitted" || event.type === "input.delivered") && turn) {
      this.#inputs.set(event.data.inputId, turn);
    }
    if (turn) this.#pushTo(turn, stored);
    this.#changes.notify();
    if (this.#closed) return;
    this.#watch();
    if (event.type === "turn.ended") this.#releaseHeld();
  }

  /** Keeps the asks waiting for an answer, and answers them by the timeout policy. */
  #trackAsks(event: CanonicalEvent): void {
    switch (event.type) {
      case "permission.asked":
      case "question.asked": {
        // An ask that comes after its turn's end (held for its call, or for its diff, while
        // the run was stopped) waits on nothing: its run is over, and kept it would leave the
        // session busy for good.
        if (event.turnId !== undefined && this.#turns.get(event.turnId)?.state === "ended") {
          this.#logger.debug("an ask came after its turn ended; not waiting on it", {
            sessionId: this.id,
            requestId: event.data.requestId,
          });
          return;
        }
        const kind = event.type === "permission.asked" ? "permission" : "question";
        const ask: PendingAsk = {
          kind,
          requestId: event.data.requestId,
          ...(event.turnId === undefined ? {} : { turnId: event.turnId }),
          event,
        };
        this.#asks.set(ask.requestId, ask);
        this.#armAskTimeout(ask);
        return;
      }
      case "permission.replied":
      case "question.replied":
      case "question.rejected":
        this.#asks.delete(event.data.requestId);
        clearTimeout(this.#askTimers.get(event.data.requestId));
        this.#askTimers.delete(event.data.requestId);
        return;
      case "turn.ended":
        // A run that ended (interrupted, failed) takes its unanswered asks with it.
        for (const [id, ask] of this.#asks) {
          if (ask.turnId === event.turnId) {
            this.#asks.delete(id);
            clearTimeout(this.#askTimers.get(id));
            this.#askTimers.delete(id);
          }
        }
        return;
      default:
        return;
    }
  }

  #armAskTimeout(ask: PendingAsk): void {
    const policy = this.#askTimeout;
    if (policy === undefined || this.#closed) return;
    const timer = setTimeout(() => {
      this.#askTimers.delete(ask.requestId);
      if (!this.#asks.has(ask.requestId)) return;
      const seconds = Math.round(policy.afterMs / 1000);
      this.#logger.info("answering an ask nobody answered", {
        sessionId: this.id,
        requestId: ask.requestId,
      });
      const answered =
        ask.kind === "permission"
          ? this.replyPermission(ask.requestId, policy.permission ?? "reject", {
              message: `no answer within ${seconds} s`,
            })
          : this.rejectQuestion(ask.requestId);
      answered.catch((error: unknown) =>
        this.#logger.warn("answering an ask on timeout failed", { sessionId: this.id, error }),
      );
    }, policy.afterMs);
    timer.unref();
    this.#askTimers.set(ask.requestId, timer);
  }

  /** Follows what runs, from the events alone: the watchdog and the queue decide on it. */
  #track(event: CanonicalEvent): void {
    this.#trackAsks(event);
    if (event.type === "turn.started") {
      this.#running = event.turnId;
      this.#inStep = false;
      this.#runningTools.clear();
      if (event.data.inputId !== undefined) removeFrom(this.#awaiting, event.data.inputId);
      return;
    }
    // Steps and tools outside the running turn (an aborted tool settling late) change nothing.
    const inRunningTurn = event.turnId !== undefined && event.turnId === this.#running;
    switch (event.type) {
      case "input.delivered":
        removeFrom(this.#awaiting, event.data.inputId);
        return;
      case "step.started":
        this.#inStep = inRunningTurn;
        return;
      case "step.ended":
      case "step.failed":
        this.#inStep = false;
        return;
      case "tool.called":
        if (inRunningTurn) this.#runningTools.add(event.data.callId);
        return;
      case "tool.succeeded":
      case "tool.failed":
        this.#runningTools.delete(event.data.callId);
        return;
      case "turn.ended":
        if (this.#running === event.turnId) this.#running = undefined;
        this.#inStep = false;
        this.#runningTools.clear();
        return;
      default:
        return;
    }
  }

  #phase(): "idle" | "waiting-for-step" | "in-step" {
    if (this.#runningTools.size > 0) return "idle";
    // Without live tool calls a step is silent while its tools run, for as long as they take;
    // the process's exit ends the turn (an interrupt stops a hung one).
    if (this.#inStep) return this.#backend.capabilities.liveToolCalls ? "in-step" : "idle";
    const waiting = this.#awaiting.length > 0 || this.#running !== undefined;
    return waiting ? "waiting-for-step" : "idle";
  }

  /** Hands a turn its event; once it has ended, the oldest ended turn beyond the few known is forgotten. */
  #pushTo(turn: Turn, event: CanonicalEvent): void {
    if (turn.state === "ended") return;
    turn.push(event);
    if (event.type !== "turn.ended") return;
    this.#ended.push(turn);
    for (const old of this.#ended.splice(0, this.#ended.length - KNOWN_ENDED_TURNS)) {
      this.#turns.delete(old.id);
      for (const [inputId, of] of this.#inputs) if (of === old) this.#inputs.delete(inputId);
    }
  }

  #turnById(id: string): Turn {
    let turn = this.#turns.get(id);
    if (turn === undefined) {
      // An ended turn reads its durable events back from the log instead of holding them.
      turn = new Turn(id, this.#log);
      this.#turns.set(id, turn);
    }
    return turn;
  }

  /**
   * @internal The bridge tells its sessions; not for users.
   * The server died (it is being restarted): the running turn, an input waiting to start and
   * the held ones end `failed` (`server-exited`) with the exit and the server's last lines.
   */
  serverExited(exit: ServerExit): void {
    if (this.#closed) return;
    const how =
      exit.signal !== null
        ? `was killed by ${exit.signal}`
        : exit.code !== null
          ? `exited with code ${exit.code}`
          : "stopped (how is unknown: this bridge did not start it)";
    const tail = exit.logTail.slice(-10).join("\n");
    const message = `opencode serve ${how}${tail === "" ? "" : `; its last lines:\n${tail}`}`;
    const running = this.#running;
    const waiting = [...this.#awaiting];
    const held = this.#held.splice(0);
    if (running !== undefined || waiting.length > 0) {
      void this.#backend.abandonTurn().catch(() => {}); // its run died with the server
    }
    if (running !== undefined) {
      this.#abandoned.add(running);
      this.#failTurn(running, "server.exit", "server-exited", message);
    }
    for (const inputId of [...waiting, ...held.map((entry) => entry.inputId)]) {
      const turnId = turnIdFor(inputId);
      if (turnId === running) continue;
      this.#abandoned.add(turnId);
      removeFrom(this.#awaiting, inputId);
      this.#failTurn(turnId, "server.exit", "server-exited", message, inputId);
    }
  }

  /**
   * Arms what watches a busy session: the stall watchdog while the streams reach the server;
   * while they do not, silence says nothing about the run, and the connection-lost bound
   * takes its place.
   */
  #watch(): void {
    const busy = !this.#closed && (this.#running !== undefined || this.#awaiting.length > 0);
    this.#connection.watch(busy);
    if (this.#connection.connected) this.#watchdog.update(this.#phase());
    else this.#watchdog.stop();
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
    const origin = {
      sessionId: this.id,
      turnId: undefined,
      at: Date.now(),
      native: {
        backend: this.#backend.kind,
        type: "runtime.connection",
        id: `connection_${this.id}_${++this.#connectionChanges}`,
      },
    };
    this.#log.append(canonical(origin, 0, "connection.changed", { ...state }));
    this.#watch();
  }

  /**
   * The streams stayed away for the connection-lost bound: the running turn and the inputs
   * waiting to start end `failed` (`connection-lost`), and the upstream run is asked to stop.
   * The streams go on reconnecting; late events of these turns are dropped.
   */
  #connectionLost(state: ConnectionState): void {
    if (this.#closed) return;
    const running = this.#running;
    const waiting = this.#awaiting.splice(0);
    if (running === undefined && waiting.length === 0) return;
    const message = connectionLostMessage(state);
    this.#logger.warn("connection lost; ending the turn", { sessionId: this.id, message });
    this.#abandoning = this.#backend
      .abandonTurn()
      .catch((error: unknown) =>
        this.#logger.warn("stopping the run after a lost connection failed", {
          sessionId: this.id,
          error,
        }),
      )
      .finally(() => {
        this.#abandoning = undefined;
        this.#releaseHeld();
      });
    if (running !== undefined) {
      this.#abandoned.add(running);
      this.#failTurn(running, "runtime.connection", "connection-lost", message);
    }
    for (const inputId of waiting) {
      const turnId = turnIdFor(inputId);
      if (turnId === running) continue;
      this.#abandoned.add(turnId);
      this.#failTurn(turnId, "runtime.connection", "connection-lost", message, inputId);
    }
  }

  /** The watchdog fired: end the turn `failed` / `stalled`, and stop the upstream run. */
  #stalled(stall: Stall): void {
    const pendingInput = this.#awaiting[0];
    const turnId =
      this.#running ?? (pendingInput === undefined ? undefined : turnIdFor(pendingInput));
    if (turnId === undefined) return;
    this.#logger.warn("turn stalled", { sessionId: this.id, turnId, kind: stall.kind });
    this.#abandoned.add(turnId);
    // Held inputs wait until the upstream run is stopped, or they would join it.
    this.#abandoning = this.#backend
      .abandonTurn()
      .catch((error: unknown) =>
        this.#logger.warn("stopping the stalled run failed", { sessionId: this.id, error }),
      )
      .finally(() => {
        this.#abandoning = undefined;
        this.#releaseHeld();
      });
    const neverStarted = this.#running === undefined ? pendingInput : undefined;
    if (neverStarted !== undefined) removeFrom(this.#awaiting, neverStarted);
    this.#failTurn(turnId, "watchdog", "stalled", stall.hint, neverStarted);
  }

  /**
   * Ends a turn `failed` for a reason of the runtime's own (its `error.kind` too). An input
   * that never started a turn (`neverStarted`) gets one opened first, so that exactly one
   * start meets one end.
   */
  #failTurn(
    turnId: string,
    source: string,
    reason: string,
    message: string,
    neverStarted?: string,
  ): void {
    if (neverStarted !== undefined) {
      this.#publish(turnId, source, "turn.started", { inputId: neverStarted });
    }
    this.#publish(turnId, source, "turn.ended", {
      outcome: "failed",
      reason,
      error: { kind: reason, message },
      text: this.#turnById(turnId).partialText(),
    });
  }

  /** Publishes an event the runtime itself originates (not derived from a native one). */
  #publish<T extends CanonicalType>(
    turnId: string,
    source: string,
    type: T,
    data: CanonicalEventOf<T>["data"],
  ): void {
    const origin = {
      sessionId: this.id,
      turnId,
      at: Date.now(),
      native: { backend: this.#backend.kind, type: source, id: `${source}_${turnId}_${type}` },
    };
    this.#dispatch(canonical(origin, 0, type, data));
  }
}

function attachments(options: Pick<Input, "files" | "agents">) {
  return {
    ...(options.files === undefined ? {} : { files: options.files }),
    ...(options.agents === undefined ? {} : { agents: options.agents }),
  };
}

function removeFrom(list: string[], value: string): void {
  const index = list.indexOf(value);
  if (index >= 0) list.splice(index, 1);
}
