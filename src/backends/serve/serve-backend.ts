/**
 * The `serve` backend: OpenCode's `/api` surface. Prompts are admitted with an explicit
 * delivery (the server queues and steers natively), events come from the durable per-session
 * stream merged with the live one (deltas, asks), and an interrupt is the server's own.
 */

import { AbortError, OpencodeApiError, UsageError } from "../../errors.js";
import { apiStateFromEvents } from "../../events/api-state-from-events.js";
import { canonical, type ToolErrorKind } from "../../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, ModelRef, Todo } from "../../events/canonical.js";
import { DeltaCatchUp } from "../../events/delta-catch-up.js";
import type { DeltaStats } from "../../events/delta-stats.js";
import { pendingEarlierConversation } from "../../events/earlier-conversation.js";
import { type InlinedText, withInlinedTexts } from "../../events/inlined-texts.js";
import {
  type ApiNormalizerState,
  apiInterruptRequested,
  initialApiState,
  normalizeApiEvent,
} from "../../events/normalize-api.js";
import { normalizeSafely } from "../../events/safe-normalize.js";
import { sinceRehydration } from "../../events/since-rehydration.js";
import { boundedTodos } from "../../events/todo-list.js";
import { endingOf, inputIdOfTurn } from "../../events/turn-state.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import type { ClientCallOptions } from "../../opencode-client/operation-caller.js";
import { ModelLimit } from "../../opencode-protocol/api/session.js";
import { KnownAgents, listAgents } from "../agents.js";
import { AnsweredAsks } from "../answered-asks.js";
import type { BackendContext, PermissionReply, PromptRequest, SessionBackend } from "../backend.js";
import { backendEvent } from "../backend-event.js";
import { BACKEND_CAPABILITIES } from "../capabilities.js";
import { commandPrompt } from "../commands.js";
import type { SessionChanges, VcsStatus } from "../file-changes.js";
import { LiveReadiness } from "../live-readiness.js";
import { forTheModel } from "../model-attachments.js";
import { diffOfToolCall } from "../permission-diff.js";
import { StreamHealth } from "../stream-health.js";
import type { Terminal, TerminalSize } from "../terminal.js";
import { ToolCalls } from "../tool-calls.js";
import { AskCalls } from "./ask-calls.js";
import { AskTurns } from "./ask-turns.js";
import { MergedSessionStream, type MergedStreamName } from "./merged-stream.js";
import { isMessageId, mintMessageId } from "./message-id.js";
import { openPtyTerminal } from "./pty-terminal.js";
import { stagedRevertInput, stageRevertToBefore } from "./revert-input.js";
import { sessionChanges, vcsStatus } from "./session-changes.js";
import { SnapshotTrees } from "./snapshot-trees.js";

/** How long an ask waits for its tool call's input (it comes on the other connection). */
const TOOL_INPUT_WAIT_MS = 2_000;

/** The backend named on events a normaliser could not handle. */
const SEEN_ON_SERVE = { backend: "serve" } as const;

/** Quiet time after an interrupted tool before asking whether the run stopped. */
const STOP_CHECK_DELAY_MS = 1_000;

export interface ServeBackendOptions {
  /** Bound on silence before a stream counts as dropped (default 30 s). */
  idleTimeoutMs?: number;
  /** How long a part's end waits for its deltas once none comes (default `DELTA_IDLE_MS`). */
  deltaIdleMs?: number;
  /** How long an idle session keeps its durable stream open (default `DURABLE_LINGER_MS`). */
  durableLingerMs?: number;
  /**
   * The OpenCode session, where it is not the bridge's session id: a session that went on in a
   * new one after its own was lost (`session.rehydrated`).
   */
  upstreamId?: string;
  /**
   * The server's data home, where OpenCode keeps its step snapshots (a managed server's): a
   * turn's changes are then its own, else the working tree's against the last commit.
   */
  dataHome?: string;
}

export class ServeBackend implements SessionBackend {
  readonly kind = "serve" as const;
  readonly capabilities = BACKEND_CAPABILITIES.serve;
  readonly upstreamId: string;
  readonly #client: OpencodeClient;
  readonly #context: BackendContext;
  readonly #stop = new AbortController();
  readonly #live = new LiveReadiness(() => this.#streams.retryLive());
  #state: ApiNormalizerState;
  readonly #streams: MergedSessionStream;
  /** A prompt was admitted and its turn has not shown yet: the durable stream must stay. */
  #promptPending = false;
  #pump: Promise<void>;
  #stopCheck: NodeJS.Timeout | undefined;
  readonly #answered: AnsweredAsks;
  /** Where the durable stream starts: 0, or an adopted session's cursor. */
  readonly #after: number;
  readonly #calls = new ToolCalls();
  /** The agents a switch may name, as last listed (a switch need not list them each time). */
  readonly #knownAgents = new KnownAgents();
  /** The terminals opened and not ended: closed with the session. */
  readonly #terminals = new Set<Terminal>();
  readonly #catchUp: DeltaCatchUp;
  /** Live asks wait here for their tool call on the durable stream, which names their turn. */
  readonly #askTurns: AskTurns;
  /** The tool call each ask is about, and the calls whose ask was refused (and how). */
  readonly #askCalls = new AskCalls();
  /**
   * The input an undo staged upstream took back, `none`, or `unknown` (an adopted session:
   * asked of OpenCode when it matters). The next prompt commits it first.
   */
  #undone: string | "none" | "unknown";
  /**
   * A fork's, or a continued session's, conversation so far: its new OpenCode session has none
   * of it, so the first input carries it to the model (attached, as text files are).
   */
  #earlier: InlinedText | undefined;
  /** The inputs delivered into each running turn: whose steps `files.changed` sums at its end. */
  readonly #turnInputs = new Map<string, string[]>();
  /** OpenCode's step snapshots, where the bridge can read them. */
  readonly #trees: SnapshotTrees | undefined;

  constructor(client: OpencodeClient, context: BackendContext, options: ServeBackendOptions = {}) {
    this.upstreamId = options.upstreamId ?? context.sessionId;
    this.#trees = options.dataHome === undefined ? undefined : new SnapshotTrees(options.dataHome);
    this.#client = client;
    this.#context = context;
    // An adopted session carries on from the cursor, with the state its events describe.
    const resume = context.resume;
    this.#after = Number(resume?.cursor ?? 0) || 0;
    // The state as of the cursor: native events after it are read (and normalised) again.
    this.#state =
      resume === undefined
        ? initialApiState(context.sessionId)
        : apiStateFromEvents(
            context.sessionId,
            // The cursor is the current OpenCode session's: a lost one's events are not its.
            sinceRehydration(resume.events).filter(
              (event) => (event.native?.seq ?? 0) <= this.#after,
            ),
          );
    this.#undone = resume === undefined ? "none" : "unknown";
    this.#earlier = resume === undefined ? undefined : pendingEarlierConversation(resume.events);
    this.#answered = new AnsweredAsks(context.sessionId, this.kind);
    this.#catchUp = new DeltaCatchUp(context.sink, {
      logger: context.logger,
      ...(options.deltaIdleMs === undefined ? {} : { idleMs: options.deltaIdleMs }),
    });
    this.#askTurns = new AskTurns((event) => this.#publish(event), {
      currentTurn: () => this.#state.turn?.id,
      logger: context.logger,
    });
    this.#streams = this.#open(options);
    this.#pump = this.#run();
    this.#streams.busy(this.#state.turn !== undefined); // an adopted turn may run
  }

  ready(signal?: AbortSignal): Promise<void> {
    return this.#live.wait(signal, this.#context);
  }

  check(): void {}

  idempotentInputId(): string {
    return mintMessageId();
  }

  async prompt(request: PromptRequest): Promise<{ inputId: string }> {
    // Open (or kept open) until the turn shows: its events must not wait for a wake-up.
    this.#promptPending = true;
    this.#streams.busy(true);
    this.#streams.wake();
    try {
      return await this.#admit(request);
    } catch (error) {
      this.#promptPending = false;
      this.#streams.busy(this.#state.turn !== undefined);
      throw error;
    }
  }

  async #admit(request: PromptRequest): Promise<{ inputId: string }> {
    await this.#commitUndo(request.signal);
    // `/api` takes one text: attached text files go in it (the admission echo drops them again).
    const { media, texts } = forTheModel(request.files ?? []);
    const earlier = this.#earlier;
    const admitted = await this.#client.v2.session
      .prompt(
        {
          sessionID: this.upstreamId,
          prompt: {
            text: withInlinedTexts(
              request.text,
              earlier === undefined ? texts : [...texts, earlier],
            ),
            ...(media.length === 0
              ? {}
              : { files: media.map((file) => ({ uri: file.uri, name: file.name })) }),
            ...(request.agents === undefined
              ? {}
              : { agents: request.agents.map((name) => ({ name })) }),
          },
          delivery: request.delivery,
          // Named by the bridge, so that a prompt whose answer was lost can be sent again.
          id:
            request.inputId !== undefined && isMessageId(request.inputId)
              ? request.inputId
              : mintMessageId(),
        },
        this.#callOptions(request.signal),
      )
      .catch((error: unknown) => {
        throw this.#lostUpstream(error);
      });
    this.#earlier = undefined; // said: the new OpenCode session keeps it in its history
    return { inputId: admitted.id };
  }

  /**
   * A prompt OpenCode answered 404 (`SessionNotFoundError`): its session was deleted, or this
   * server never had it. Said as what to do about it; other errors as they are.
   */
  #lostUpstream(error: unknown): unknown {
    if (!(error instanceof OpencodeApiError) || error.status !== 404) return error;
    const id = this.#context.sessionId;
    return new UsageError(
      `session ${id}'s OpenCode session ${this.upstreamId} no longer exists (deleted, or kept by another server): continue it in a new one (Bridge.continueSession, POST /v1/sessions/${id}/continue)`,
      { cause: error },
    );
  }

  async interrupt(signal?: AbortSignal): Promise<void> {
    this.#streams.wake();
    this.#state = apiInterruptRequested(this.#state);
    await this.#client.v2.session.interrupt(
      { sessionID: this.upstreamId },
      this.#callOptions(signal),
    );
    // A run stopped before its first step sends no event at all: nothing else would look.
    this.#watchStoppedRun();
  }

  async switchModel(model: ModelRef, signal?: AbortSignal): Promise<void> {
    await this.#client.v2.session.switchModel(
      { sessionID: this.upstreamId, model: { providerID: model.providerID, id: model.modelID } },
      this.#callOptions(signal),
    );
  }

  async switchAgent(agent: string, signal?: AbortSignal): Promise<void> {
    const options = this.#callOptions(signal);
    // OpenCode takes any name: an unknown one is refused here, with the names there are.
    await this.#knownAgents.check(agent, () =>
      listAgents(this.#client, this.#context.directory, signal ? { signal } : {}),
    );
    // OpenCode's own `session.next.agent.switched` (durable) becomes `agent.switched`: read now.
    this.#streams.wake();
    await this.#client.v2.session.switchAgent({ sessionID: this.upstreamId, agent }, options);
  }

  commandPrompt(name: string, args: string, signal?: AbortSignal): Promise<string> {
    return commandPrompt(this.#client, this.#context.directory, name, args, signal);
  }

  async changes(
    scope: { inputIds?: readonly string[] },
    signal?: AbortSignal,
  ): Promise<SessionChanges> {
    const options = this.#callOptions(signal);
    // The whole session's changes are those of its turns not undone.
    const undone = scope.inputIds === undefined ? await this.#undoneInput(options) : undefined;
    return await sessionChanges(
      this.#client,
      this.upstreamId,
      {
        ...(scope.inputIds === undefined ? {} : { inputIds: new Set(scope.inputIds) }),
        ...(undone === undefined ? {} : { undone }),
        patches: true,
        trees: this.#trees,
      },
      options,
    );
  }

  /** The input a staged undo took back, if any (asked of OpenCode for an adopted session). */
  async #undoneInput(options: ClientCallOptions): Promise<string | undefined> {
    if (this.#undone === "unknown") {
      this.#undone = (await stagedRevertInput(this.#client, this.upstreamId, options)) ?? "none";
    }
    return this.#undone === "none" ? undefined : this.#undone;
  }

  async vcsStatus(signal?: AbortSignal): Promise<VcsStatus> {
    return await vcsStatus(this.#client, this.#callOptions(signal));
  }

  async contextLimit(model: ModelRef, signal?: AbortSignal): Promise<number | undefined> {
    const models = await this.#client.v2.model.list(this.#callOptions(signal));
    const entry = models.find(
      (candidate) => candidate.providerID === model.providerID && candidate.id === model.modelID,
    );
    const limit = ModelLimit.safeParse(entry).data?.limit?.context;
    return limit !== undefined && limit > 0 ? limit : undefined;
  }

  async todos(signal?: AbortSignal): Promise<Todo[]> {
    const todos = await this.#client.session.todo(
      { sessionID: this.upstreamId },
      this.#callOptions(signal),
    );
    return boundedTodos(todos);
  }

  /**
   * After a turn's end: `files.changed` with the files its steps changed, when there are any,
   * in the turn. OpenCode says nothing of them on its streams (see session-changes.ts).
   */
  async #announceChanges(turnId: string, inputIds: readonly string[]): Promise<void> {
    try {
      const { files, moreFiles } = await sessionChanges(
        this.#client,
        this.upstreamId,
        { inputIds: new Set(inputIds), patches: false, trees: this.#trees },
        this.#callOptions(this.#stop.signal),
      );
      if (files.length === 0 && moreFiles === undefined) return;
      this.#catchUp.push(
        backendEvent(
          this.upstreamId,
          this.kind,
          "session.files",
          "files.changed",
          { files, ...(moreFiles === undefined ? {} : { moreFiles }) },
          // Named by its turn: a turn's end read again (an adopted session) says it once.
          { turnId, nativeId: `session.files_${turnId}` },
        ),
      );
    } catch (error) {
      if (this.#stop.signal.aborted) return;
      this.#context.logger.warn("could not read the files a turn changed", {
        sessionId: this.upstreamId,
        turnId,
        error,
      });
    }
  }

  async openTerminal(options: { size?: TerminalSize; signal?: AbortSignal }): Promise<Terminal> {
    if (this.#stop.signal.aborted) throw new UsageError("the session is closed");
    const terminal = await openPtyTerminal(this.#client, {
      directory: this.#context.directory,
      ...options,
    });
    this.#terminals.add(terminal);
    void terminal.ended.then(() => this.#terminals.delete(terminal));
    // Closed while it was being opened: it goes too.
    if (this.#stop.signal.aborted) await terminal.close();
    return terminal;
  }

  async revert(inputId: string, signal?: AbortSignal): Promise<void> {
    const { files, moreFiles } = await stageRevertToBefore(
      this.#client,
      this.upstreamId,
      inputId,
      this.#callOptions(signal),
    );
    this.#undone = inputId;
    // OpenCode's own `revert.*` events name the message kept, not the input: said here.
    this.#context.sink(
      backendEvent(this.#context.sessionId, this.kind, "session.revert", "session.reverted", {
        inputId,
        files,
        ...(moreFiles === 0 ? {} : { moreFiles }),
      }),
    );
  }

  async unrevert(signal?: AbortSignal): Promise<void> {
    const options = this.#callOptions(signal);
    const inputId = await this.#undoneInput(options);
    if (inputId === undefined) {
      throw new UsageError(
        `nothing to redo in session ${this.upstreamId}: no undo since its last input (an input after an undo makes it final)`,
      );
    }
    await this.#client.v2.session.revert.clear({ sessionID: this.upstreamId }, options);
    this.#undone = "none";
    this.#context.sink(
      backendEvent(this.#context.sessionId, this.kind, "session.unrevert", "session.unreverted", {
        inputId,
      }),
    );
  }

  /**
   * Makes a staged undo final before a prompt: OpenCode would otherwise keep the undone
   * messages in the model's context, and a later redo would put back files over the new turn's.
   */
  async #commitUndo(signal: AbortSignal | undefined): Promise<void> {
    if (this.#undone === "none") return;
    const options = this.#callOptions(signal);
    const staged =
      this.#undone !== "unknown" ||
      (await this.#client.v2.session.get({ sessionID: this.upstreamId }, options)).revert !==
        undefined;
    if (staged)
      await this.#client.v2.session.revert.commit({ sessionID: this.upstreamId }, options);
    this.#undone = "none";
  }

  async abandonTurn(): Promise<void> {
    // No end of this turn may come through: what is kept for it is let go now.
    const turnId = this.#state.turn?.id;
    this.#catchUp.abandonTurn(turnId);
    this.#askCalls.turnEnded(turnId);
    if (turnId !== undefined) this.#turnInputs.delete(turnId);
    this.#state = { ...this.#state, turn: undefined, pending: new Map() };
    await this.#client.v2.session.interrupt(
      { sessionID: this.upstreamId },
      this.#callOptions(undefined),
    );
  }

  async close(): Promise<void> {
    clearTimeout(this.#stopCheck);
    this.#stop.abort();
    await Promise.all([...this.#terminals].map((terminal) => terminal.close()));
    await this.#pump;
    this.#askTurns.flush();
    this.#catchUp.flush();
  }

  serverRestarted(): void {
    this.#streams.reconnectDurable();
  }

  deltaStats(): DeltaStats {
    return this.#catchUp.stats();
  }

  /** How many asks and refused calls are remembered (only what is open; for tests). */
  askEntries(): { asks: number; refusals: number } {
    return this.#askCalls.size;
  }

  /** The live stream (re)connected: prompts may go, and deltas it missed are not waited for. */
  #liveConnected(): void {
    this.#live.connected();
    this.#catchUp.liveConnected();
  }

  /** Publishes an event: a permission ask once it carries its diff, a reply only once. */
  #publish(event: CanonicalEvent): void {
    if (!this.#answered.keep(event)) return;
    if (
      (event.type === "permission.asked" || event.type === "question.asked") &&
      event.data.callId !== undefined
    ) {
      this.#askCalls.asked(event.data.requestId, event.data.callId, event.turnId);
    }
    if (
      event.type === "permission.replied" ||
      event.type === "question.replied" ||
      event.type === "question.rejected"
    ) {
      this.#askCalls.answered(event.data.requestId);
    }
    if (event.type === "turn.ended") this.#askCalls.turnEnded(event.turnId);
    // 1.18's `/api` fails a refused call as "interrupted"; it was the user's refusal.
    if (event.type === "tool.succeeded") this.#askCalls.settled(event.data.callId);
    if (event.type === "tool.failed") {
      const refused = this.#askCalls.settled(event.data.callId);
      if (refused !== undefined) {
        event = {
          ...event,
          data: { ...event.data, error: { ...event.data.error, kind: refused } },
        };
      }
    }
    if (event.type === "tool.called") this.#calls.called(event.data.callId, event.data);
    if (event.type === "turn.ended") this.#calls.turnEnded();
    if (event.type === "input.delivered" && event.turnId !== undefined) {
      const inputs = this.#turnInputs.get(event.turnId) ?? [];
      this.#turnInputs.set(event.turnId, [...inputs, event.data.inputId]);
    }
    if (event.type === "turn.ended" && event.turnId !== undefined) {
      const inputs = this.#turnInputs.get(event.turnId) ?? [inputIdOfTurn(event.turnId)];
      this.#turnInputs.delete(event.turnId);
      void this.#announceChanges(event.turnId, inputs);
    }
    if (event.type === "permission.asked" && event.data.diff === undefined) {
      // Into the catch-up like any event: it must not overtake its own call, held behind a
      // part's end that waits for its deltas.
      void this.#withDiff(event).then((enriched) => this.#catchUp.push(enriched));
      return;
    }
    this.#catchUp.push(event);
  }

  /**
   * 1.18's `/api` asks carry no diff: compute it from the tool call's input (which may arrive
   * a moment after the ask: the two come on different connections) and the file on disk.
   */
  async #withDiff(
    event: CanonicalEventOf<"permission.asked">,
  ): Promise<CanonicalEventOf<"permission.asked">> {
    const callId = event.data.callId;
    if (callId === undefined) return event;
    try {
      const call = await this.#calls.input(callId, TOOL_INPUT_WAIT_MS);
      if (call === undefined) return event;
      const diff = await diffOfToolCall(this.#context.directory, call.tool, call.input);
      return diff === undefined ? event : { ...event, data: { ...event.data, ...diff } };
    } catch (error) {
      this.#context.logger.warn("could not compute the diff of a permission ask", { error });
      return event;
    }
  }

  async replyPermission(reply: PermissionReply, signal?: AbortSignal): Promise<void> {
    this.#streams.wake();
    const send = () =>
      this.#client.v2.session.permission.reply(
        {
          sessionID: this.upstreamId,
          requestID: reply.requestId,
          reply: reply.reply,
          ...(reply.message === undefined ? {} : { message: reply.message }),
        },
        this.#callOptions(signal),
      );
    if (reply.reply === "reject")
      await this.#refusing(reply.requestId, "permission-rejected", send);
    else await send();
    this.#publishReply("permission.replied", { requestId: reply.requestId, reply: reply.reply });
  }

  async answerQuestion(requestId: string, answers: string[][], signal?: AbortSignal) {
    this.#streams.wake();
    await this.#client.v2.session.question.reply(
      { sessionID: this.upstreamId, requestID: requestId, answers },
      this.#callOptions(signal),
    );
    this.#publishReply("question.replied", { requestId, answers });
  }

  async rejectQuestion(requestId: string, signal?: AbortSignal): Promise<void> {
    this.#streams.wake();
    await this.#refusing(requestId, "question-rejected", () =>
      this.#client.v2.session.question.reject(
        { sessionID: this.upstreamId, requestID: requestId },
        this.#callOptions(signal),
      ),
    );
    this.#publishReply("question.rejected", { requestId });
  }

  /**
   * Sends a refusal of the ask `requestId`, having noted its tool call as refused (`kind`)
   * first: the call's failure can arrive before the refusal's answer. Undone if it fails.
   */
  async #refusing(requestId: string, kind: ToolErrorKind, send: () => Promise<unknown>) {
    const undo = this.#askCalls.refusing(requestId, kind);
    try {
      await send();
    } catch (error) {
      undo();
      throw error;
    }
  }

  #publishReply<T extends "permission.replied" | "question.replied" | "question.rejected">(
    type: T,
    data: CanonicalEventOf<T>["data"],
  ): void {
    this.#askCalls.answered(data.requestId);
    const event = this.#answered.replied(type, data, this.#state.turn?.id);
    if (event !== undefined) this.#context.sink(event);
  }

  #callOptions(signal: AbortSignal | undefined) {
    return { directory: this.#context.directory, ...(signal ? { signal } : {}) };
  }

  #open(options: ServeBackendOptions): MergedSessionStream {
    const health = new StreamHealth<MergedStreamName>("live", this.#context.connection);
    return new MergedSessionStream(this.#client, {
      sessionId: this.upstreamId,
      after: this.#after,
      signal: this.#stop.signal,
      directory: this.#context.directory,
      logger: this.#context.logger,
      onLiveConnected: () => this.#liveConnected(),
      onLiveHeard: (heardId) => this.#catchUp.liveHeard(heardId),
      onConnection: (name, change) => {
        if (change === "closed") {
          health.forget(name);
          return;
        }
        if (name === "live" && change.state === "reconnecting") this.#live.disconnected();
        // The server answers again: a durable stream still down may be waiting on an attempt
        // a starting server took and never answers (or on its backoff); it connects now.
        if (name === "live" && change.state === "connected" && health.isDown("durable")) {
          this.#streams.reconnectDurable();
        }
        health.change(name, change);
      },
      ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
      ...(options.durableLingerMs === undefined ? {} : { lingerMs: options.durableLingerMs }),
    });
  }

  async #run(): Promise<void> {
    try {
      for await (const { parsed } of this.#streams.events()) {
        const result = normalizeSafely(normalizeApiEvent, this.#state, parsed, SEEN_ON_SERVE);
        this.#state = result.state;
        for (const event of result.events) this.#askTurns.push(event);
        this.#watchStoppedRun();
        // An idle session lets its durable stream go (see MergedSessionStream).
        if (this.#state.turn !== undefined) this.#promptPending = false;
        this.#streams.busy(this.#state.turn !== undefined || this.#promptPending);
      }
    } catch (error) {
      if (!(error instanceof AbortError)) {
        this.#context.logger.error("the session's event streams failed", {
          sessionId: this.upstreamId,
          error,
        });
      }
    }
  }

  /**
   * After an interrupt, 1.18 usually ends the step; but a run stopped by a rejected permission
   * ends with no event at all. If nothing comes for a moment, ask the server whether the
   * session still runs, and end the turn `interrupted` if it does not.
   */
  #watchStoppedRun(): void {
    clearTimeout(this.#stopCheck);
    this.#stopCheck = undefined;
    if (!this.#state.turn?.interrupting) return;
    this.#stopCheck = setTimeout(() => {
      void this.#endIfStopped();
    }, STOP_CHECK_DELAY_MS);
    this.#stopCheck.unref();
  }

  async #endIfStopped(): Promise<void> {
    const turn = this.#state.turn;
    if (!turn?.interrupting) return;
    try {
      const active = await this.#client.v2.session.active(this.#callOptions(this.#stop.signal));
      if (this.#state.turn !== turn) return;
      // Still running: a loaded server can take a while to let a stopped run go; ask again.
      if (this.upstreamId in active) {
        this.#watchStoppedRun();
        return;
      }
      this.#context.logger.info("the interrupted run stopped without a step end", {
        sessionId: this.upstreamId,
      });
      this.#state = { ...this.#state, turn: undefined };
      // Behind any part end still held: a turn's end comes after its parts'.
      this.#catchUp.push(
        canonical(
          {
            sessionId: this.#context.sessionId,
            turnId: turn.id,
            at: Date.now(),
            native: { backend: "serve", type: "session.active", id: `stopped_${turn.id}` },
          },
          0,
          "turn.ended",
          endingOf(turn, "interrupted"),
        ),
      );
    } catch (error) {
      if (error instanceof AbortError) return;
      this.#context.logger.warn("could not ask whether the session still runs", {
        sessionId: this.upstreamId,
        error,
      });
    }
  }
}
