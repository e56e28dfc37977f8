/**
 * A live session, on whichever backend runs it: `send` with an explicit delivery, the turns
 * it joins or starts, interrupt, model switch, and the canonical event stream (kept events
 * from a seq, then live ones). The backend publishes canonical events; the session numbers
 * and keeps them, hands each to its turn, watches for stalls, and holds back queued inputs
 * where the backend has no queue of its own.
 *
 * The session coordinates; its parts live beside it and share one state object,
 * `session-state.ts` (what runs, the inputs waiting for their turn, a run being stopped, the
 * close), which they read and change through its transitions: the way in (`input-sender.ts`,
 * with the inputs it holds back, `held-inputs.ts`), the watch on a busy session
 * (`run-watch.ts`), pending asks and their timers (`pending-asks.ts`), turns by id
 * (`session-turns.ts`), the turns the runtime ends itself (`runtime-ends.ts`), subagents'
 * child sessions (`child-sessions.ts`).
 */

import {
  type BackendConnection,
  type BackendKind,
  type HistoryBackend,
  hasHistory,
  type SessionBackend,
} from "../../backends/backend.js";
import type { Capabilities } from "../../backends/capabilities.js";
import type { SessionChanges, VcsStatus } from "../../backends/file-changes.js";
import { SessionFiles } from "../../backends/files/session-files.js";
import { withCheckedDiff } from "../../backends/permission-diff.js";
import type { Terminal, TerminalSize } from "../../backends/terminal.js";
import { UsageError } from "../../errors.js";
import type { CanonicalEvent, ConnectionState, ModelRef, Todo } from "../../events/canonical.js";
import { sinceRehydration } from "../../events/since-rehydration.js";
import type { ServerExit } from "../../server/server-handle.js";
import { throwIfAborted } from "../../util/abort.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import { type ChildSession, ChildSessions } from "./child-sessions.js";
import { ConnectionWatch } from "./connection-watch.js";
import { EventLog } from "./event-log.js";
import { InputSender } from "./input-sender.js";
import {
  checkPermissionReply,
  checkQuestionAnswers,
  type PendingAsk,
  PendingAsks,
} from "./pending-asks.js";
import { awaitingInputs } from "./run-state.js";
import { RunWatch } from "./run-watch.js";
import { RuntimeEnds } from "./runtime-ends.js";
import { connectionChangedEvent, type RuntimeOrigin } from "./runtime-events.js";
import {
  childSessionIds,
  latestModel,
  type SessionContext,
  sessionContextOf,
  turnInputIds,
} from "./session-context.js";
import type {
  BackendFactory,
  SendOptions,
  SessionOptions,
  SessionStats,
} from "./session-options.js";
import { SessionState } from "./session-state.js";
import { SessionTurns } from "./session-turns.js";
import type { Turn } from "./turn.js";
import { DEFAULT_WATCHDOG, Watchdog } from "./watchdog.js";

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

/** A slash command sent (`Session.runCommand`): its turn, and the prompt it expanded to. */
export interface CommandRun {
  turn: Turn;
  /** The text sent: the command's template with the arguments put in (its `input.admitted` text). */
  prompt: string;
}

export class Session implements AsyncDisposable {
  readonly id: string;
  readonly directory: string;
  /** The files of its directory: listed, read, found (never outside it). */
  readonly files: SessionFiles;
  readonly #backend: SessionBackend;
  readonly #logger: Logger;
  readonly #log: EventLog;
  readonly #children: ChildSessions;
  readonly #turns: SessionTurns;
  /** What runs and waits, and the close: its parts read and change it through its transitions. */
  readonly #state: SessionState;
  readonly #asks: PendingAsks;
  readonly #ends: RuntimeEnds;
  /** The way in: sends, one at a time, and the inputs held back. */
  readonly #sender: InputSender;
  /** The stall watchdog, or the bound on an outage while busy. */
  readonly #watch: RunWatch;
  /** Whether the native streams reach the server, and the bound on an outage while busy. */
  readonly #connection: ConnectionWatch;
  #connectionChanges = 0;
  /** An undo or redo under way: inputs wait for it. */
  #historyChange: Promise<void> | undefined;
  #lastActivity = Date.now();
  #forkedFrom: { sessionId: string; inputId: string } | undefined;
  /** Terminals opened and not ended. */
  #openTerminals = 0;

  /** @internal Sessions come from `Bridge.createSession` / `openSession`, not from users. */
  constructor(id: string, backend: BackendFactory, options: SessionOptions) {
    this.id = id;
    this.directory = options.directory;
    this.files = new SessionFiles(options.directory);
    const logger = options.logger ?? silentLogger;
    this.#logger = logger;
    const state = new SessionState(id);
    this.#state = state;
    this.#connection = new ConnectionWatch(options.connectionLostAfterMs, (connection) =>
      this.#connectionLost(connection),
    );
    const watchdog = new Watchdog({ ...DEFAULT_WATCHDOG, ...options.watchdog }, (stall) =>
      this.#afterStop(this.#ends.stalled(stall)),
    );
    this.#watch = new RunWatch({
      state,
      connection: this.#connection,
      watchdog,
      capabilities: () => this.#backend.capabilities,
    });
    const store = options.store;
    this.#log = new EventLog({
      ...(store === undefined ? {} : { store: { store, sessionId: id } }),
      logger,
    });
    this.#children = new ChildSessions({ parentId: id, store, logger });
    const turns = new SessionTurns(this.#log);
    this.#turns = turns;
    this.#asks = new PendingAsks({
      sessionId: id,
      logger,
      timeout: options.askTimeout,
      turnEnded: (turnId) => turns.hasEnded(turnId),
      answer: (answer) =>
        answer.kind === "permission"
          ? this.replyPermission(answer.requestId, answer.reply, { message: answer.message })
          : this.rejectQuestion(answer.requestId),
    });
    const currentBackend = () => this.#backend;
    const dispatch = (event: CanonicalEvent) => this.#dispatch(event);
    const ends = new RuntimeEnds({ state, turns, logger, backend: currentBackend, dispatch });
    this.#ends = ends;
    this.#sender = new InputSender({
      directory: options.directory,
      logger,
      options,
      backend: currentBackend,
      state,
      watch: this.#watch,
      connection: this.#connection,
      turns,
      ends,
      dispatch,
    });
    const resume = options.resume;
    if (resume !== undefined) this.#seed(resume.events);
    this.#backend = backend({
      sessionId: id,
      directory: options.directory,
      logger,
      // Whoever computed an ask's diff, it shows no file outside the directory.
      sink: (event) => this.#fromBackend(withCheckedDiff(options.directory, event)),
      childSink: (event) =>
        this.#children.log(event.sessionId).append(withCheckedDiff(options.directory, event)),
      connection: (connection) => this.#connectionChanged(connection),
      ...(resume === undefined ? {} : { resume }),
    });
    if (resume !== undefined && this.capabilities.durableResume) {
      // Admitted upstream before the last bridge died, not started yet: the turn is coming
      // (unless that OpenCode session was lost since: the new one has no such input).
      for (const inputId of awaitingInputs(sinceRehydration(resume.events))) {
        state.awaiting(inputId);
      }
    }
    // An adopted turn is watched like any other: silence from a run that died upstream ends it.
    if (resume !== undefined) this.#watch.update();
    const adoptedRun = state.run.running;
    if (resume !== undefined && adoptedRun !== undefined) {
      if (!this.capabilities.durableResume) {
        // What happened upstream while nobody followed is gone on this backend.
        ends.bridgeRestarted(adoptedRun);
      } else if (!startedIn(sinceRehydration(resume.events), adoptedRun)) {
        // It ran in an OpenCode session lost since: nothing will end it.
        ends.upstreamLost(adoptedRun);
      }
    }
    // A turn that took another turn's input ended before the last bridge died, that one not yet.
    for (const joined of this.#turns.takeJoinedEnds()) ends.joined(joined);
  }

  /** The kept events of an adopted session: its turns and state as they were. */
  #seed(events: readonly CanonicalEvent[]): void {
    this.#log.seed(events);
    for (const event of events) {
      this.#children.note(event);
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

  /** The session this one is a fork of, and the input it was forked before (`session.forked`). */
  get forkedFrom(): { sessionId: string; inputId: string } | undefined {
    return this.#forkedFrom;
  }

  /**
   * Since when nothing has run or waited (ms since the epoch); undefined while busy, or while
   * a terminal is open (an idle release would close it under its user).
   */
  get idleSince(): number | undefined {
    return this.#busy || this.#openTerminals > 0 ? undefined : this.#lastActivity;
  }

  get #busy(): boolean {
    return this.#sender.busy || this.#state.running || this.#asks.size > 0;
  }

  /** Whether a turn runs, an input waits, an ask is open or the history is being changed. */
  get busy(): boolean {
    return this.#busy || this.#historyChange !== undefined;
  }

  /**
   * Whether the session's native streams reach the server (a UI shows "reconnecting…" from
   * it); each change is also published as an ephemeral `connection.changed` event.
   */
  get connection(): ConnectionState {
    return this.#connection.state;
  }

  /** The seq of the last durable event (0 before the first): resume `events({ after })` from it. */
  get lastSeq(): number {
    return this.#log.lastSeq;
  }

  /**
   * The turn that is running now; while none runs, the turn an input sent upstream waits to
   * start (state `pending`: after a restart, the adopted session's only handle on it), if any.
   */
  get runningTurn(): Turn | undefined {
    const { running, awaiting } = this.#state.run;
    if (running !== undefined) return this.#turns.byId(running);
    const waiting = awaiting[0];
    return waiting === undefined ? undefined : this.#turns.ofInput(waiting);
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
    this.#state.throwIfClosed();
    await this.#historyChange;
    return await this.#sender.send(text, options);
  }

  /** Takes back a queued input not yet sent (`capabilities.cancelQueued`; docs/events.md). */
  cancelInput(inputId: string): void {
    this.#sender.cancel(inputId);
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
    this.#state.throwIfClosed();
    this.#asks.waiting(requestId, kind);
  }

  /** Interrupts the running turn; it ends `interrupted` and the session stays usable. */
  async interrupt(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.#backend.interrupt(options.signal);
  }

  /**
   * Undo: takes the session back to before `inputId` (`capabilities.revert`). The files it and
   * every input after it changed are put back as they were, and `session.reverted` (naming
   * them) moves their messages out of the conversation. `unrevert()` takes the undo back; the
   * next input makes it final. Also the way out of a turn that fails every turn after it. Only
   * while nothing runs or waits.
   */
  async revert(inputId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const backend = this.#historyBackend("revert", options.signal);
    await this.#changingHistory(() => backend.revert(inputId, options.signal));
  }

  /**
   * Redo: takes the last undo back while no input has followed it: its messages and file
   * changes are back (`session.unreverted`). Refused when there is nothing to redo.
   */
  async unrevert(options: { signal?: AbortSignal } = {}): Promise<void> {
    const backend = this.#historyBackend("redo", options.signal);
    await this.#changingHistory(() => backend.unrevert(options.signal));
  }

  /** The backend, when it can undo and redo and the session is free to. */
  #historyBackend(what: "revert" | "redo", signal: AbortSignal | undefined): HistoryBackend {
    this.#state.throwIfClosed();
    throwIfAborted(signal, what === "revert" ? "reverting the session" : "redoing");
    const backend = this.#backend;
    if (!backend.capabilities.revert || !hasHistory(backend)) {
      throw new UsageError(`the ${backend.kind} backend cannot ${what} a session`);
    }
    this.#throwIfBusy(what);
    return backend;
  }

  /** Refuses a change of the history while anything runs, waits or changes it already. */
  #throwIfBusy(what: string): void {
    if (this.#busy || this.#historyChange !== undefined) {
      throw new UsageError(
        `session ${this.id} is busy (a turn runs, an input waits, an ask is open or an undo or compaction is under way): ${what} once it has ended, or interrupt it first`,
      );
    }
  }

  /**
   * Runs slash command `name` with `args` (`capabilities.commands`; `Bridge.commands()` lists
   * them) as an input: its template, with the arguments put in, is sent like `send` sends a
   * text, so its turn is a normal turn, steered or queued like any. A UsageError for a name the
   * session's directory has no command of (naming those it has).
   */
  async runCommand(
    name: string,
    args: string,
    options: Pick<SendOptions, "delivery" | "signal">,
  ): Promise<CommandRun> {
    this.#state.throwIfClosed();
    throwIfAborted(options.signal, "running a command");
    const backend = this.#backend;
    if (!backend.capabilities.commands || backend.commandPrompt === undefined) {
      throw new UsageError(`the ${backend.kind} backend cannot run slash commands`);
    }
    const prompt = await backend.commandPrompt(name, args, options.signal);
    return { turn: await this.send(prompt, options), prompt };
  }

  /**
   * Compacts the session's history into a summary written by the model (`capabilities.compact`):
   * the following turns' model gets the summary instead of the history; `session.compacted`
   * says so. Only while nothing runs or waits; inputs sent meanwhile wait for it.
   */
  async compact(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#state.throwIfClosed();
    throwIfAborted(options.signal, "compacting the session");
    const backend = this.#backend;
    if (!backend.capabilities.compact || backend.compact === undefined) {
      throw new UsageError(
        `the ${backend.kind} backend cannot compact a session${backend.kind === "serve" ? " by itself (OpenCode 1.18's /api has no compaction: its compact route answers 503): Bridge.compactSession compacts it" : ""}`,
      );
    }
    this.#throwIfBusy("compact");
    const compact = backend.compact.bind(backend);
    await this.#changingHistory(() => compact(options.signal));
  }

  /**
   * Runs an undo, a redo or a compaction; inputs sent meanwhile wait for it (they would race it).
   * It answers once the event it published is kept: a caller told "done" must find it in the
   * events even if the process dies the next moment (a SIGKILL right after the sidecar's answer
   * lost an undo's `session.reverted` before).
   */
  async #changingHistory(change: () => Promise<void>): Promise<void> {
    const running = change().then(() => this.#log.settled());
    this.#historyChange = running.catch(() => {});
    try {
      await running;
    } finally {
      this.#historyChange = undefined;
    }
  }

  /** Switches the model for the next steps. */
  async switchModel(model: ModelRef, options: { signal?: AbortSignal } = {}): Promise<void> {
    throwIfAborted(options.signal, "switching the model");
    await this.#backend.switchModel(model, options.signal);
  }

  /**
   * Switches the session's agent for the next steps (`capabilities.switchAgent`): one of
   * `Bridge.agents()`, else a UsageError naming them; `agent.switched` follows. Like a model
   * switch, allowed while a turn runs (OpenCode takes it; the run's next step uses it).
   */
  async switchAgent(agent: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#state.throwIfClosed();
    throwIfAborted(options.signal, "switching the agent");
    const backend = this.#backend;
    if (!backend.capabilities.switchAgent || backend.switchAgent === undefined) {
      throw new UsageError(`the ${backend.kind} backend cannot switch a session's agent`);
    }
    await backend.switchAgent(agent, options.signal);
  }

  /**
   * What the session changed (`capabilities.changes`): the files its steps changed, or those of
   * the turn `turnId`, each with its lines and unified diff (see `SessionChanges`; diffs
   * bounded: `patchTruncated`). A turn that is not the session's is a UsageError.
   */
  async changes(options: { turnId?: string; signal?: AbortSignal } = {}): Promise<SessionChanges> {
    const backend = this.#supporting("changes", "tell a session's file changes", options.signal);
    if (options.turnId === undefined) return await backend.changes({}, options.signal);
    const inputIds = turnInputIds(await this.transcript(), options.turnId);
    if (inputIds.length === 0) {
      throw new UsageError(
        `no turn ${options.turnId} in session ${this.id}: its turns are named by the turnId of its events`,
      );
    }
    return await backend.changes({ inputIds }, options.signal);
  }

  /** The working tree of the session's directory against its last commit (`capabilities.changes`). */
  async vcsStatus(options: { signal?: AbortSignal } = {}): Promise<VcsStatus> {
    const backend = this.#supporting("vcsStatus", "tell the working tree's status", options.signal);
    return await backend.vcsStatus(options.signal);
  }

  /** The agent's todo list as it last wrote it (`capabilities.todos`; `todo.updated` follows it). */
  async todos(options: { signal?: AbortSignal } = {}): Promise<Todo[]> {
    const backend = this.#supporting("todos", "read a session's todo list", options.signal);
    return await backend.todos(options.signal);
  }

  /**
   * What the session spent (its steps' usage summed, its subagents' child sessions apart and
   * in `total`), one turn's spending (`turnId`, else the latest turn) and the latest step's
   * context against its model's limit where the server's catalog has one.
   */
  async context(options: { turnId?: string; signal?: AbortSignal } = {}): Promise<SessionContext> {
    this.#state.throwIfClosed();
    throwIfAborted(options.signal, "reading the session's context");
    const events = await this.transcript();
    if (options.turnId !== undefined && !events.some((event) => event.turnId === options.turnId)) {
      throw new UsageError(
        `no turn ${options.turnId} in session ${this.id}: its turns are named by the turnId of its events`,
      );
    }
    const children = new Map<string, CanonicalEvent[]>();
    for (const childId of childSessionIds(events)) {
      children.set(childId, await this.child(childId).transcript());
    }
    const model = latestModel(events);
    const limit =
      model === undefined || this.#backend.contextLimit === undefined
        ? undefined
        : await this.#backend.contextLimit(model, options.signal);
    return sessionContextOf(events, children, {
      ...(options.turnId === undefined ? {} : { turnId: options.turnId }),
      ...(limit === undefined ? {} : { limit }),
    });
  }

  /** The backend, when it has `method` (and its capability); else a UsageError saying so. */
  #supporting<M extends "changes" | "vcsStatus" | "todos">(
    method: M,
    what: string,
    signal: AbortSignal | undefined,
  ): SessionBackend & Required<Pick<SessionBackend, M>> {
    this.#state.throwIfClosed();
    throwIfAborted(signal, what);
    const backend = this.#backend;
    const capability = method === "todos" ? "todos" : "changes";
    if (!backend.capabilities[capability] || !hasMethod(backend, method)) {
      throw new UsageError(`the ${backend.kind} backend cannot ${what}`);
    }
    return backend;
  }

  /**
   * Opens a terminal, a shell in the session directory (`capabilities.terminal`; a UsageError
   * elsewhere). It ends when its shell exits, when it is closed, or when the session closes.
   */
  async openTerminal(
    options: { size?: TerminalSize; signal?: AbortSignal } = {},
  ): Promise<Terminal> {
    this.#state.throwIfClosed();
    throwIfAborted(options.signal, "opening a terminal");
    const backend = this.#backend;
    if (!backend.capabilities.terminal || backend.openTerminal === undefined) {
      throw new UsageError(`the ${backend.kind} backend cannot open a terminal`);
    }
    const terminal = await backend.openTerminal(options);
    this.#openTerminals += 1;
    void terminal.ended.then(() => {
      this.#openTerminals -= 1;
      this.#lastActivity = Date.now();
    });
    return terminal;
  }

  /** Kept events after `after` (a bridge seq), then live ones; ends when the session closes. */
  events(options: { after?: number; signal?: AbortSignal } = {}): AsyncIterable<CanonicalEvent> {
    return this.#log.read(options.after ?? 0, options.signal);
  }

  /** Durable events received so far, once kept (read from the store, when the session has one). */
  transcript(): Promise<CanonicalEvent[]> {
    return this.#log.durable();
  }

  /**
   * Resolves once every event the session has received so far is kept and handed out: with a
   * store, an event reaches readers (and `lastSeq`) only after its commit.
   */
  settled(): Promise<void> {
    return this.#log.settled();
  }

  /** Counts of what the session could not hand out whole (see docs/events.md, "Deltas"). */
  stats(): SessionStats {
    const none = { completedParts: 0, incompleteParts: 0, droppedDeltas: 0, liveReconnects: 0 };
    return { deltas: this.#backend.deltaStats?.() ?? none };
  }

  /**
   * Stops following the session (the upstream session is kept). Held inputs never ran: their
   * turns end `failed` (`session-closed`); so does a turn still running, which nobody follows
   * any more (on a server it may go on upstream).
   */
  async close(): Promise<void> {
    await this.#stopFollowing((held) => this.#ends.closed(held));
  }

  /**
   * @internal Stops following the session as a crash of this process would, for a successor
   * to adopt (`Bridge.detach()`): a running turn is not ended and nothing is asked upstream;
   * only inputs the runtime held back (never sent) end `failed` (`session-closed`).
   */
  async detach(): Promise<void> {
    await this.#stopFollowing((held) => this.#ends.detached(held));
  }

  /** Closes the state (once: a second close or detach does nothing), then stops following. */
  async #stopFollowing(endHeld: (held: string[]) => void): Promise<void> {
    // The close also wakes a send waiting for its input's admission: it stops waiting.
    if (!this.#state.close()) return;
    this.#watch.stop();
    // A send waiting before it went out gives up.
    const sent = this.#sender.close(new UsageError(`session ${this.id} is closed`));
    this.#asks.close();
    await sent;
    await this.#backend.close();
    endHeld(this.#sender.held.takeAll().map((entry) => entry.inputId));
    await Promise.all([this.#log.close(), this.#children.close()]);
  }

  /** `await using session = …` closes it at the end of the block (same as `close()`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** An event from the backend: dropped when it belongs to a turn the runtime already ended. */
  #fromBackend(event: CanonicalEvent): void {
    if (event.turnId !== undefined && this.#ends.isAbandoned(event.turnId)) {
      this.#logger.debug("dropped a late event of a stalled turn", {
        sessionId: this.id,
        type: event.type,
      });
      return;
    }
    this.#dispatch(this.#sender.withAttachmentRefs(event));
  }

  #dispatch(event: CanonicalEvent): void {
    this.#lastActivity = Date.now();
    // The cursor kept with an event is the native seq *before* the one it came from: one native
    // event can give several canonical ones (a step's end and the turn's), and a crash between
    // them must not skip the rest. A resume re-reads that native event; what was kept of it is
    // dropped by id.
    const cursor = event.native?.seq === undefined ? undefined : String(event.native.seq - 1);
    // Named at once: its events may come before the parent's event is committed.
    this.#children.note(event);
    // Followed once handed out: with a store, after its commit (events stay in order).
    this.#log.append(event, cursor, (stored) => this.#appended(event, stored));
  }

  #appended(event: CanonicalEvent, stored: CanonicalEvent | undefined): void {
    if (stored === undefined) return; // delivered again after a resume: kept already
    this.#track(event);
    this.#turns.deliver(stored);
    // Even once closed: the close ends the running turn, and what joined it ends with it.
    for (const joined of this.#turns.takeJoinedEnds()) this.#ends.joined(joined);
    if (this.#state.closed) return;
    this.#watch.update();
    if (event.type === "turn.ended") this.#sender.held.release();
  }

  /**
   * Follows what runs and what is asked, from the events alone (waking whoever waits for a
   * change: a send for its input's admission, re-checked once the turns have the event too).
   */
  #track(event: CanonicalEvent): void {
    if (event.type === "session.forked") this.#forkedFrom = event.data.from;
    this.#asks.track(event);
    this.#state.track(event);
  }

  /** Once the backend stopped an abandoned run (or failed to), the next held input may go. */
  #afterStop(stop: Promise<void> | undefined): void {
    void stop?.then(() => this.#sender.held.release());
  }

  /**
   * @internal The bridge tells its sessions; not for users.
   * The server died (it is being restarted): the running turn, an input waiting to start and
   * the held ones end `failed` (`server-exited`) with the exit and the server's last lines.
   */
  serverExited(exit: ServerExit): void {
    if (this.#state.closed) return;
    const held = this.#sender.held.takeAll().map((entry) => entry.inputId);
    this.#ends.serverExited(held, exit);
  }

  /**
   * @internal The bridge tells its sessions; not for users.
   * The server is back after a crash: the backend's streams connect to it again now.
   */
  serverRestarted(): void {
    if (this.#state.closed) return;
    this.#backend.serverRestarted?.();
  }

  /** The backend's streams lost the server, or reached it again: say so, and watch accordingly. */
  #connectionChanged(report: BackendConnection): void {
    if (this.#state.closed) return;
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
    this.#watch.update();
  }

  /** The streams stayed away for the connection-lost bound: what runs ends `connection-lost`. */
  #connectionLost(state: ConnectionState): void {
    if (!this.#state.closed) this.#afterStop(this.#ends.connectionLost(state));
  }

  /** Who originates the events the runtime adds to this session. */
  get #origin(): RuntimeOrigin {
    return { sessionId: this.id, backend: this.#backend.kind };
  }
}

/** Whether turn `turnId` started among `events`. */
function startedIn(events: readonly CanonicalEvent[], turnId: string): boolean {
  return events.some((event) => event.type === "turn.started" && event.turnId === turnId);
}

/** Whether `backend` has the optional `method`. */
function hasMethod<M extends keyof SessionBackend>(
  backend: SessionBackend,
  method: M,
): backend is SessionBackend & Required<Pick<SessionBackend, M>> {
  return backend[method] !== undefined;
}
