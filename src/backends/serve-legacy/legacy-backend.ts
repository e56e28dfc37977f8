/**
 * The `serve-legacy` backend: OpenCode's `/session` + `/event` surface, which every 1.x server
 * has. Prompts go in with `prompt_async` (a prompt into a busy session is answered in a
 * further step of the same run: native steer); there is no server queue, so the runtime
 * holds queued inputs; events are the location's `/event` stream filtered to the session,
 * with part snapshots diffed into canonical events; an interrupt is `abort`. The model is
 * named on every prompt, so a switch applies from the next input on.
 */
import type { OpencodeClient } from "../../client/opencode-client.js";
import { AbortError } from "../../errors.js";
import type { ModelRef } from "../../events/canonical.js";
import {
  initialLegacyState,
  type LegacyNormalizerState,
  legacyPromptFailed,
  legacyPromptSent,
  legacyTurnAbandoned,
  normalizeLegacyEvent,
} from "../../events/normalize-legacy.js";
import { legacyEventSessionId } from "../../protocol/legacy/events.js";
import type { PartInput } from "../../protocol/legacy/session.js";
import {
  type BackendContext,
  mintInputId,
  type PromptRequest,
  type SessionBackend,
} from "../backend.js";
import { BACKEND_CAPABILITIES } from "../capabilities.js";
import { LiveReadiness } from "../live-readiness.js";
import { modelSwitchedEvent } from "../model-switched.js";
import { filePartOf } from "./file-part.js";

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
  readonly #live = new LiveReadiness();
  #model: ModelRef;
  #state: LegacyNormalizerState;
  #pump: Promise<void>;

  constructor(client: OpencodeClient, context: BackendContext, options: LegacyBackendOptions) {
    this.upstreamId = context.sessionId;
    this.#client = client;
    this.#context = context;
    this.#model = options.model;
    this.#state = initialLegacyState(context.sessionId);
    this.#pump = this.#run(options.idleTimeoutMs);
  }

  ready(signal?: AbortSignal): Promise<void> {
    return this.#live.wait(signal, this.#context);
  }

  async prompt(request: PromptRequest): Promise<{ inputId: string }> {
    const inputId = request.inputId ?? mintInputId();
    const parts: PartInput[] = [{ type: "text", text: request.text }];
    for (const uri of request.files ?? []) parts.push(filePartOf(uri));
    for (const name of request.agents ?? []) parts.push({ type: "agent", name });
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
    return { inputId };
  }

  async interrupt(signal?: AbortSignal): Promise<void> {
    await this.#client.session.abort({ sessionID: this.upstreamId }, this.#callOptions(signal));
  }

  async switchModel(model: ModelRef): Promise<void> {
    this.#model = model;
    this.#context.sink(modelSwitchedEvent(this.upstreamId, this.kind, model));
  }

  abandonTurn(): void {
    this.#state = legacyTurnAbandoned(this.#state);
    void this.#client.session
      .abort({ sessionID: this.upstreamId }, this.#callOptions(undefined))
      .catch((error: unknown) =>
        this.#context.logger.warn("abort after a stall failed", {
          sessionId: this.upstreamId,
          error,
        }),
      );
  }

  async close(): Promise<void> {
    this.#stop.abort();
    await this.#pump;
  }

  #callOptions(signal: AbortSignal | undefined) {
    return { directory: this.#context.directory, ...(signal ? { signal } : {}) };
  }

  async #run(idleTimeoutMs: number | undefined): Promise<void> {
    const events = this.#client.event.subscribe({
      signal: this.#stop.signal,
      directory: this.#context.directory,
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    });
    try {
      for await (const parsed of events) {
        const event = parsed.event as { type: string } & Record<string, unknown>;
        if (event.type === "server.connected") {
          this.#live.connected();
          continue;
        }
        if (legacyEventSessionId(event) !== this.upstreamId) continue;
        const result = normalizeLegacyEvent(this.#state, parsed);
        this.#state = result.state;
        for (const canonicalEvent of result.events) this.#context.sink(canonicalEvent);
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
