/**
 * The `serve` backend: OpenCode's `/api` surface. Prompts are admitted with an explicit
 * delivery (the server queues and steers natively), events come from the durable per-session
 * stream merged with the live one (deltas, asks), and an interrupt is the server's own.
 */
import type { OpencodeClient } from "../../client/opencode-client.js";
import { AbortError } from "../../errors.js";
import { canonical } from "../../events/build.js";
import type { ModelRef } from "../../events/canonical.js";
import {
  type ApiNormalizerState,
  apiInterruptRequested,
  initialApiState,
  normalizeApiEvent,
} from "../../events/normalize-api.js";
import { endingOf } from "../../events/turn-state.js";
import type { BackendContext, PromptRequest, SessionBackend } from "../backend.js";
import { BACKEND_CAPABILITIES } from "../capabilities.js";
import { LiveReadiness } from "../live-readiness.js";
import { mergedSessionStream } from "./merged-stream.js";

/** Quiet time after an interrupted tool before asking whether the run stopped. */
const STOP_CHECK_DELAY_MS = 1_000;

export interface ServeBackendOptions {
  /** Bound on silence before a stream counts as dropped (default 30 s). */
  idleTimeoutMs?: number;
}

export class ServeBackend implements SessionBackend {
  readonly kind = "serve" as const;
  readonly capabilities = BACKEND_CAPABILITIES.serve;
  readonly upstreamId: string;
  readonly #client: OpencodeClient;
  readonly #context: BackendContext;
  readonly #stop = new AbortController();
  readonly #live = new LiveReadiness();
  #state: ApiNormalizerState;
  #pump: Promise<void>;
  #stopCheck: NodeJS.Timeout | undefined;

  constructor(client: OpencodeClient, context: BackendContext, options: ServeBackendOptions = {}) {
    this.upstreamId = context.sessionId;
    this.#client = client;
    this.#context = context;
    this.#state = initialApiState(context.sessionId);
    this.#pump = this.#run(options.idleTimeoutMs);
  }

  ready(signal?: AbortSignal): Promise<void> {
    return this.#live.wait(signal, this.#context);
  }

  check(): void {}

  async prompt(request: PromptRequest): Promise<{ inputId: string }> {
    const admitted = await this.#client.v2.session.prompt(
      {
        sessionID: this.upstreamId,
        prompt: {
          text: request.text,
          ...(request.files === undefined ? {} : { files: request.files.map((uri) => ({ uri })) }),
          ...(request.agents === undefined
            ? {}
            : { agents: request.agents.map((name) => ({ name })) }),
        },
        delivery: request.delivery,
      },
      this.#callOptions(request.signal),
    );
    return { inputId: admitted.id };
  }

  async interrupt(signal?: AbortSignal): Promise<void> {
    this.#state = apiInterruptRequested(this.#state);
    await this.#client.v2.session.interrupt(
      { sessionID: this.upstreamId },
      this.#callOptions(signal),
    );
  }

  async switchModel(model: ModelRef, signal?: AbortSignal): Promise<void> {
    await this.#client.v2.session.switchModel(
      { sessionID: this.upstreamId, model: { providerID: model.providerID, id: model.modelID } },
      this.#callOptions(signal),
    );
  }

  async abandonTurn(): Promise<void> {
    this.#state = { ...this.#state, turn: undefined, pending: new Map() };
    await this.#client.v2.session.interrupt(
      { sessionID: this.upstreamId },
      this.#callOptions(undefined),
    );
  }

  async close(): Promise<void> {
    clearTimeout(this.#stopCheck);
    this.#stop.abort();
    await this.#pump;
  }

  #callOptions(signal: AbortSignal | undefined) {
    return { directory: this.#context.directory, ...(signal ? { signal } : {}) };
  }

  async #run(idleTimeoutMs: number | undefined): Promise<void> {
    const stream = mergedSessionStream(this.#client, {
      sessionId: this.upstreamId,
      after: 0,
      signal: this.#stop.signal,
      directory: this.#context.directory,
      logger: this.#context.logger,
      onLiveConnected: () => this.#live.connected(),
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    });
    try {
      for await (const { parsed } of stream) {
        const result = normalizeApiEvent(this.#state, parsed);
        this.#state = result.state;
        for (const event of result.events) this.#context.sink(event);
        this.#watchStoppedRun();
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
      if (this.upstreamId in active || this.#state.turn !== turn) return;
      this.#context.logger.info("the interrupted run stopped without a step end", {
        sessionId: this.upstreamId,
      });
      this.#state = { ...this.#state, turn: undefined };
      this.#context.sink(
        canonical(
          {
            sessionId: this.upstreamId,
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
