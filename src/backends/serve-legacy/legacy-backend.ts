/**
 * The `serve-legacy` backend: OpenCode's `/session` + `/event` surface, which every 1.x server
 * has. Prompts go in with `prompt_async` (a prompt into a busy session is answered in a
 * further step of the same run: native steer); there is no server queue, so the runtime
 * holds queued inputs; events are the location's `/event` stream filtered to the session,
 * with part snapshots diffed into canonical events; an interrupt is `abort`. The model is
 * named on every prompt, so a switch applies from the next input on.
 */

import { AbortError, ConnectionError } from "../../errors.js";
import type { ModelRef, Todo } from "../../events/canonical.js";
import { DeltaCatchUp } from "../../events/delta-catch-up.js";
import type { DeltaStats } from "../../events/delta-stats.js";
import { inlinedBlock } from "../../events/inlined-texts.js";
import {
  initialLegacyState,
  type LegacyNormalizerState,
  legacyInterruptRequested,
  legacyPromptFailed,
  legacyPromptLate,
  legacyPromptSent,
  legacyTurnAbandoned,
  normalizeLegacyEvent,
} from "../../events/normalize-legacy.js";
import { normalizeSafely } from "../../events/safe-normalize.js";
import { boundedTodos } from "../../events/todo-list.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import type { Parsed } from "../../opencode-protocol/common.js";
import { type LegacyEvent, legacyEventSessionId } from "../../opencode-protocol/legacy/events.js";
import type { PartInput } from "../../opencode-protocol/legacy/session.js";
import { ChangeNotifier } from "../../util/change-notifier.js";
import {
  type BackendContext,
  mintInputId,
  type PermissionReply,
  type PromptRequest,
  type SessionBackend,
} from "../backend.js";
import { BACKEND_CAPABILITIES } from "../capabilities.js";
import { commandPrompt } from "../commands.js";
import { LIVE_CONNECT_TIMEOUT_MS, LiveReadiness } from "../live-readiness.js";
import { forTheModel } from "../model-attachments.js";
import { modelSwitchedEvent } from "../model-switched.js";
import { StreamHealth } from "../stream-health.js";
import { ChildSessions } from "./child-sessions.js";

/** How long a prompt waits for an event stream that is reconnecting before it is refused. */
const RECONNECT_WAIT_MS = 60_000;

/** How long a prompt waits for its user message on the stream. */
const SEEN_TIMEOUT_MS = 5_000;

export interface LegacyBackendOptions {
  /** The model every prompt names. */
  model: ModelRef;
  /** Bound on silence before the stream counts as dropped (default 30 s). */
  idleTimeoutMs?: number;
}

export class LegacyBackend implements SessionBackend {
  readonly kind = "serve-legacy" as const;
  readonly capabilities = BACKEND_CAPABILITIES["serve-legacy"];
  readonly upstreamId: string;
  readonly #client: OpencodeClient;
  readonly #context: BackendContext;
  readonly #stop = new AbortController();
  /** The `/event` connection of now: aborted to open a new one (`serverRestarted`). */
  #connection = new AbortController();
  /** A retry drops the connection (or its backoff): `#run` opens a new one at once. */
  readonly #live = new LiveReadiness(() => this.#connection.abort());
  /**
   * One for the backend, not per connection: a connection opened anew (a retry, a restarted
   * server) that connects must end the outage the one before it reported.
   */
  readonly #health: StreamHealth<"event">;
  #model: ModelRef;
  #state: LegacyNormalizerState;
  #pump: Promise<void>;
  readonly #children: ChildSessions;
  /** Wakes prompts waiting for their user message. */
  readonly #changes = new ChangeNotifier();
  /**
   * One ordered stream: nothing to wait for, but a delta after its part's end is dropped and
   * counted. The legacy surface streams no tool input.
   */
  readonly #deltas: DeltaCatchUp;

  constructor(client: OpencodeClient, context: BackendContext, options: LegacyBackendOptions) {
    this.upstreamId = context.sessionId;
    this.#client = client;
    this.#context = context;
    this.#model = options.model;
    this.#health = new StreamHealth("event", context.connection);
    this.#state = initialLegacyState(context.sessionId);
    this.#deltas = new DeltaCatchUp(context.sink, {
      idleMs: 0,
      kinds: ["text", "reasoning"],
      logger: context.logger,
    });
    this.#children = new ChildSessions(context.sessionId, {
      events: context.childSink,
      // A child's ask surfaces on the parent's running turn: the parent's run waits on it.
      ask: (event) => {
        const { turnId: _childTurn, ...rest } = event;
        const turnId = this.#state.turn?.id;
        context.sink({ ...rest, sessionId: context.sessionId, ...(turnId ? { turnId } : {}) });
      },
      logger: context.logger,
    });
    this.#pump = this.#run(options.idleTimeoutMs);
  }

  async ready(signal?: AbortSignal): Promise<void> {
    if (!this.#live.reconnecting) return this.#live.wait(signal, this.#context);
    // On this surface a prompt sent while /event is down loses every event of its turn (there
    // is no cursor to catch up from: the turn would wait for the watchdog), so it waits for the
    // stream to come back, and is refused if it does not.
    if (await this.#live.connectedWithin(RECONNECT_WAIT_MS, signal)) return;
    throw new ConnectionError(
      "/event",
      `the server's event stream has not come back within ${RECONNECT_WAIT_MS / 1000} s, so the ` +
        "input was not sent (its events could not be heard); send it again once " +
        'session.connection.state is "connected"',
    );
  }

  check(request: Omit<PromptRequest, "signal">): void {
    partsOf(request);
  }

  async prompt(request: PromptRequest): Promise<{ inputId: string }> {
    const inputId = request.inputId ?? mintInputId();
    const parts = partsOf(request);
    // Expected before the request: the user message can be published before the answer.
    this.#state = legacyPromptSent(this.#state, inputId, request.announced === true);
    try {
      await this.#client.session.promptAsync(
        { sessionID: this.upstreamId, model: this.#model, parts },
        this.#callOptions(request.signal),
      );
    } catch (error) {
      this.#state = legacyPromptFailed(this.#state, inputId);
      throw error;
    }
    await this.#seen(inputId, request.text, request.signal);
    return { inputId };
  }

  /**
   * Waits (bounded) until the server's user message for `inputId` has been seen. Inputs are
   * matched to user messages in order, so one that has not shown up stops being expected in
   * order, or every later input would be matched to the message before its own; a loaded
   * server may still publish it late, so it is then matched by its `text`.
   */
  async #seen(inputId: string, text: string, signal: AbortSignal | undefined): Promise<void> {
    const seen = await this.#changes.until(
      () => !this.#state.expected.some((entry) => entry.inputId === inputId),
      { what: "waiting for the prompt's user message", timeoutMs: SEEN_TIMEOUT_MS, signal },
    );
    if (seen) return;
    this.#state = legacyPromptLate(this.#state, inputId, text);
    const message = "the server took the prompt but has published no user message for it yet";
    this.#context.logger.warn(message, { sessionId: this.upstreamId, inputId });
  }

  // The server publishes `permission.replied` / `question.replied` / `question.rejected` itself.
  async replyPermission(reply: PermissionReply, signal?: AbortSignal): Promise<void> {
    await this.#client.permission.reply(
      {
        requestID: reply.requestId,
        reply: reply.reply,
        ...(reply.message === undefined ? {} : { message: reply.message }),
      },
      this.#callOptions(signal),
    );
  }

  async answerQuestion(requestId: string, answers: string[][], signal?: AbortSignal) {
    await this.#client.question.reply({ requestID: requestId, answers }, this.#callOptions(signal));
  }

  async rejectQuestion(requestId: string, signal?: AbortSignal): Promise<void> {
    await this.#client.question.reject({ requestID: requestId }, this.#callOptions(signal));
  }

  async interrupt(signal?: AbortSignal): Promise<void> {
    this.#state = legacyInterruptRequested(this.#state);
    await this.#client.session.abort({ sessionID: this.upstreamId }, this.#callOptions(signal));
  }

  async switchModel(model: ModelRef): Promise<void> {
    this.#model = model;
    this.#context.sink(modelSwitchedEvent(this.upstreamId, this.kind, model));
  }

  commandPrompt(name: string, args: string, signal?: AbortSignal): Promise<string> {
    return commandPrompt(this.#client, this.#context.directory, name, args, signal);
  }

  /**
   * OpenCode's summarize, with the model of the next prompts. It runs as a turn of its own
   * (the `compaction` agent writes the summary, no input starts it), then `session.compacted`;
   * the next prompt's model sees the summary instead of the history.
   */
  async compact(signal?: AbortSignal): Promise<void> {
    const { providerID, modelID } = this.#model;
    await this.#client.session.summarize(
      { sessionID: this.upstreamId, providerID, modelID },
      this.#callOptions(signal),
    );
  }

  async todos(signal?: AbortSignal): Promise<Todo[]> {
    const todos = await this.#client.session.todo(
      { sessionID: this.upstreamId },
      this.#callOptions(signal),
    );
    return boundedTodos(todos);
  }

  async abandonTurn(): Promise<void> {
    this.#state = legacyTurnAbandoned(this.#state);
    await this.#client.session.abort({ sessionID: this.upstreamId }, this.#callOptions(undefined));
  }

  async close(): Promise<void> {
    this.#stop.abort();
    await this.#pump;
    this.#deltas.flush();
  }

  /**
   * The managed server was restarted: `/event` connects again now. A connection made while it
   * was starting can go unanswered until the header bound (30 s), and on this surface every
   * event of a turn sent meanwhile would be lost.
   */
  serverRestarted(): void {
    if (this.#stop.signal.aborted) return;
    this.#connection.abort();
  }

  deltaStats(): DeltaStats {
    return this.#deltas.stats();
  }

  /** One native event through the normaliser; one it cannot handle is kept as `native.unknown`. */
  #apply(parsed: Parsed<LegacyEvent>): void {
    try {
      const result = normalizeSafely(normalizeLegacyEvent, this.#state, parsed, {
        backend: "serve-legacy",
      });
      this.#state = result.state;
      for (const canonicalEvent of result.events) this.#deltas.push(canonicalEvent);
    } catch (error) {
      this.#context.logger.error("a legacy event could not be handled", {
        sessionId: this.upstreamId,
        type: parsed.event.type,
        error,
      });
    } finally {
      this.#changes.notify();
    }
  }

  /**
   * `/event` has no cursor: what was sent while disconnected is lost. If the turn's end was
   * among it, the session is idle now; end the turn as the missed idle would have.
   */
  async #afterReconnect(): Promise<void> {
    if (this.#state.turn === undefined) return;
    try {
      const statuses = await this.#client.session.status(this.#callOptions(this.#stop.signal));
      if (statuses[this.upstreamId]?.type === "busy" || this.#state.turn === undefined) return;
      this.#context.logger.warn(
        "the turn ended while the event stream was down; events were missed",
        {
          sessionId: this.upstreamId,
        },
      );
      this.#apply({
        known: true,
        event: { type: "session.idle", properties: { sessionID: this.upstreamId } },
      } as Parsed<LegacyEvent>);
    } catch (error) {
      if (error instanceof AbortError) return;
      this.#context.logger.warn("could not ask the session's status after a reconnect", {
        sessionId: this.upstreamId,
        error,
      });
    }
  }

  #callOptions(signal: AbortSignal | undefined) {
    return { directory: this.#context.directory, ...(signal ? { signal } : {}) };
  }

  /** Follows `/event` until the backend closes, subscribing again when told to. */
  async #run(idleTimeoutMs: number | undefined): Promise<void> {
    let connections = 0;
    const connected = () => connections++ > 0;
    for (;;) {
      const connection = new AbortController();
      this.#connection = connection;
      await this.#follow(AbortSignal.any([this.#stop.signal, connection.signal]), {
        idleTimeoutMs,
        connected,
      });
      // Only a connection dropped on purpose (`serverRestarted`) is opened again.
      if (this.#stop.signal.aborted || !connection.signal.aborted) return;
      this.#live.reopened();
    }
  }

  /** One subscription to `/event`; `connected()` says whether one came before (a reconnect). */
  async #follow(
    signal: AbortSignal,
    options: { idleTimeoutMs: number | undefined; connected: () => boolean },
  ): Promise<void> {
    const events = this.#client.event.subscribe({
      signal,
      directory: this.#context.directory,
      // The session must not go deaf because its server was away for a while.
      maxConsecutiveFailures: Number.POSITIVE_INFINITY,
      connectTimeoutMs: LIVE_CONNECT_TIMEOUT_MS,
      onConnection: (change) => {
        if (change.state === "reconnecting") this.#live.disconnected();
        this.#health.change("event", change);
      },
      ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    });
    try {
      for await (const parsed of events) {
        const event = parsed.event as { type: string } & Record<string, unknown>;
        if (event.type === "server.connected") {
          this.#live.connected();
          if (options.connected()) void this.#afterReconnect();
          continue;
        }
        const sessionId = legacyEventSessionId(event);
        if (sessionId === this.upstreamId) this.#apply(parsed);
        else if (sessionId !== undefined) this.#children.apply(sessionId, parsed);
      }
    } catch (error) {
      if (!(error instanceof AbortError)) {
        this.#context.logger.error("the session's event stream failed", {
          sessionId: this.upstreamId,
          error,
        });
      }
    }
  }
}

/** A legacy prompt's parts; throws a UsageError for an attachment it cannot send. */
function partsOf(request: Omit<PromptRequest, "signal">): PartInput[] {
  const parts: PartInput[] = [{ type: "text", text: request.text }];
  const { media, texts } = forTheModel(request.files ?? []);
  // Synthetic: the model reads them; the input's text (and the chat) stays what was typed.
  for (const file of texts) parts.push({ type: "text", text: inlinedBlock(file), synthetic: true });
  for (const file of media) {
    parts.push({ type: "file", mime: file.mime, url: file.uri, filename: file.name });
  }
  for (const name of request.agents ?? []) parts.push({ type: "agent", name });
  return parts;
}
