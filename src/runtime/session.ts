/**
 * A live OpenCode session on the serve backend: `send` with an explicit delivery, the turns
 * it joins or starts, interrupt, model switch, and the canonical event stream (kept events
 * from a seq, then live ones). One pump reads the merged native streams, normalises them,
 * numbers and keeps the durable events, and hands each to its turn.
 */
import { mergedSessionStream } from "../backends/serve/merged-stream.js";
import type { OpencodeClient } from "../client/opencode-client.js";
import { AbortError, UsageError } from "../errors.js";
import { canonical } from "../events/build.js";
import type { CanonicalEvent } from "../events/canonical.js";
import {
  type ApiNormalizerState,
  apiInterruptRequested,
  initialApiState,
  normalizeApiEvent,
} from "../events/normalize-api.js";
import { endingOf, turnIdFor } from "../events/turn-state.js";
import { withDeadline } from "../util/abort.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { EventLog } from "./event-log.js";
import { Turn } from "./turn.js";
import { DEFAULT_WATCHDOG, type Stall, Watchdog, type WatchdogBounds } from "./watchdog.js";

export type Delivery = "steer" | "queue";

/** Quiet time after an interrupted tool before asking whether the run stopped. */
const STOP_CHECK_DELAY_MS = 1_000;

/** How long `send` waits for the live stream before prompting anyway. */
const LIVE_READY_TIMEOUT_MS = 5_000;

export interface SendOptions {
  /** Required: the server's own default (steer) is never assumed. */
  delivery: Delivery;
  /** Attachments as URIs the server can read (`file://…`, `data:…`). */
  files?: string[];
  agents?: string[];
  signal?: AbortSignal;
}

export interface SessionOptions {
  directory: string;
  logger?: Logger;
  watchdog?: Partial<WatchdogBounds>;
  /** Bound on silence before a stream counts as dropped (default 30 s). */
  idleTimeoutMs?: number;
}

export class Session {
  readonly id: string;
  readonly directory: string;
  readonly #client: OpencodeClient;
  readonly #logger: Logger;
  readonly #log = new EventLog();
  readonly #turns = new Map<string, Turn>();
  /** Turn that each input belongs to, once known. */
  readonly #inputs = new Map<string, Turn>();
  readonly #stop = new AbortController();
  readonly #watchdog: Watchdog;
  #state: ApiNormalizerState;
  #inStep = false;
  /** Tools called and not finished: a tool may run for minutes, which is not a stall. */
  readonly #runningTools = new Set<string>();
  #pump: Promise<void> | undefined;
  #stopCheck: NodeJS.Timeout | undefined;
  #liveConnected: () => void = () => {};
  /** Resolves once the live stream is connected: deltas of a prompt sent earlier would be lost. */
  readonly #liveReady = new Promise<void>((resolve) => {
    this.#liveConnected = resolve;
  });

  constructor(client: OpencodeClient, id: string, options: SessionOptions) {
    this.id = id;
    this.directory = options.directory;
    this.#client = client;
    this.#logger = options.logger ?? silentLogger;
    this.#state = initialApiState(id);
    this.#watchdog = new Watchdog({ ...DEFAULT_WATCHDOG, ...options.watchdog }, (stall) =>
      this.#stalled(stall),
    );
    this.#pump = this.#run(options.idleTimeoutMs);
  }

  /** The turn that is running now, if any. */
  get runningTurn(): Turn | undefined {
    const id = this.#state.turn?.id;
    return id === undefined ? undefined : this.#turnById(id);
  }

  /**
   * Sends an input. `steer` joins the running turn (the same Turn object is returned) and
   * starts one when idle; `queue` becomes the next turn.
   */
  async send(text: string, options: SendOptions): Promise<Turn> {
    if (options.delivery !== "steer" && options.delivery !== "queue") {
      throw new UsageError(
        `delivery must be "steer" or "queue", got ${JSON.stringify(options.delivery)}`,
      );
    }
    await this.#whenLive(options.signal);
    const running = this.runningTurn;
    const admitted = await this.#client.v2.session.prompt(
      {
        sessionID: this.id,
        prompt: {
          text,
          ...(options.files === undefined ? {} : { files: options.files.map((uri) => ({ uri })) }),
          ...(options.agents === undefined
            ? {}
            : { agents: options.agents.map((name) => ({ name })) }),
        },
        delivery: options.delivery,
      },
      { directory: this.directory, ...(options.signal ? { signal: options.signal } : {}) },
    );
    // The durable stream may have brought the admission first; it names the turn.
    const known = this.#inputs.get(admitted.id);
    if (known !== undefined) return known;
    const turn =
      options.delivery === "steer" && running !== undefined && running.state !== "ended"
        ? running
        : this.#turnById(turnIdFor(admitted.id));
    this.#inputs.set(admitted.id, turn);
    this.#watchdog.update(this.#phase());
    return turn;
  }

  /** Interrupts the running turn; it ends `interrupted` and the session stays usable. */
  async interrupt(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.#state = apiInterruptRequested(this.#state);
    await this.#client.v2.session.interrupt(
      { sessionID: this.id },
      { directory: this.directory, ...(options.signal ? { signal: options.signal } : {}) },
    );
  }

  /** Switches the model for the next steps. */
  async switchModel(model: { providerID: string; modelID: string }): Promise<void> {
    await this.#client.v2.session.switchModel(
      { sessionID: this.id, model: { providerID: model.providerID, id: model.modelID } },
      { directory: this.directory },
    );
  }

  /** Kept events after `after` (a bridge seq), then live ones; ends when the session closes. */
  events(options: { after?: number; signal?: AbortSignal } = {}): AsyncIterable<CanonicalEvent> {
    return this.#log.read(options.after ?? 0, options.signal);
  }

  /** Durable events kept so far. */
  transcript(): CanonicalEvent[] {
    return this.#log.durable();
  }

  /** Stops following the session (the upstream session is kept). */
  async close(): Promise<void> {
    this.#watchdog.stop();
    clearTimeout(this.#stopCheck);
    this.#stop.abort();
    await this.#pump;
    this.#log.close();
  }

  async #run(idleTimeoutMs: number | undefined): Promise<void> {
    const stream = mergedSessionStream(this.#client, {
      sessionId: this.id,
      after: 0,
      signal: this.#stop.signal,
      directory: this.directory,
      logger: this.#logger,
      onLiveConnected: () => this.#liveConnected(),
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    });
    try {
      for await (const { parsed } of stream) {
        const result = normalizeApiEvent(this.#state, parsed);
        this.#state = result.state;
        for (const event of result.events) this.#dispatch(event);
      }
    } catch (error) {
      if (!(error instanceof AbortError)) {
        this.#logger.error("the session's event streams failed", { sessionId: this.id, error });
      }
    }
  }

  /** Waits (bounded) for the live stream; past the bound the turn still runs, with fewer deltas. */
  async #whenLive(signal: AbortSignal | undefined): Promise<void> {
    const deadline = withDeadline("waiting for the live stream", LIVE_READY_TIMEOUT_MS, signal);
    try {
      await Promise.race([
        this.#liveReady,
        new Promise<void>((resolve) =>
          deadline.signal.addEventListener("abort", () => resolve(), { once: true }),
        ),
      ]);
    } finally {
      deadline.dispose();
    }
    if (signal?.aborted) throw new AbortError("send", { cause: signal.reason });
    if (deadline.signal.aborted) {
      this.#logger.warn("the live stream is not connected yet; deltas may be missed", {
        sessionId: this.id,
      });
    }
  }

  #dispatch(event: CanonicalEvent): void {
    const stored = this.#log.append(event);
    if (event.type === "step.started") this.#inStep = true;
    if (event.type === "step.ended" || event.type === "step.failed") this.#inStep = false;
    if (event.type === "tool.called") this.#runningTools.add(event.data.callId);
    if (event.type === "tool.succeeded" || event.type === "tool.failed") {
      this.#runningTools.delete(event.data.callId);
    }
    if (event.type === "turn.ended") {
      this.#inStep = false;
      this.#runningTools.clear();
    }
    const turn = event.turnId === undefined ? undefined : this.#turnById(event.turnId);
    if ((event.type === "input.admitted" || event.type === "input.delivered") && turn) {
      this.#inputs.set(event.data.inputId, turn);
    }
    turn?.push(stored);
    this.#watchdog.update(this.#phase());
    this.#watchStoppedRun();
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
      const active = await this.#client.v2.session.active({ directory: this.directory });
      if (this.id in active || this.#state.turn !== turn) return;
      this.#logger.info("the interrupted run stopped without a step end", { sessionId: this.id });
      this.#dispatch(
        canonical(this.#watchdogOrigin(turn.id), 0, "turn.ended", endingOf(turn, "interrupted")),
      );
      this.#state = { ...this.#state, turn: undefined };
      this.#inStep = false;
      this.#watchdog.update(this.#phase());
    } catch (error) {
      this.#logger.warn("could not ask whether the session still runs", {
        sessionId: this.id,
        error,
      });
    }
  }

  #phase(): "idle" | "waiting-for-step" | "in-step" {
    if (this.#runningTools.size > 0) return "idle";
    if (this.#inStep) return "in-step";
    const waiting = this.#state.pending.size > 0 || this.#state.turn !== undefined;
    return waiting ? "waiting-for-step" : "idle";
  }

  #turnById(id: string): Turn {
    let turn = this.#turns.get(id);
    if (turn === undefined) {
      turn = new Turn(id);
      this.#turns.set(id, turn);
    }
    return turn;
  }

  /** The watchdog fired: end the turn `failed` / `stalled`, and stop the server's run. */
  #stalled(stall: Stall): void {
    const running = this.#state.turn;
    const pendingInput = [...this.#state.pending.keys()][0];
    const turnId =
      running?.id ?? (pendingInput === undefined ? undefined : turnIdFor(pendingInput));
    if (turnId === undefined) return;
    this.#logger.warn("turn stalled", { sessionId: this.id, turnId, kind: stall.kind });
    const ending = running
      ? endingOf(running, "failed", {
          reason: "stalled",
          error: { kind: "stalled", message: stall.hint },
        })
      : {
          outcome: "failed" as const,
          reason: "stalled",
          error: { kind: "stalled", message: stall.hint },
          text: "",
        };
    if (!running && pendingInput !== undefined) {
      // The input never started a turn: open one so that exactly one start meets one end.
      this.#dispatch(
        canonical(this.#watchdogOrigin(turnId), 0, "turn.started", { inputId: pendingInput }),
      );
    }
    this.#dispatch(canonical(this.#watchdogOrigin(turnId), 1, "turn.ended", ending));
    this.#state = { ...this.#state, turn: undefined, pending: new Map() };
    this.#inStep = false;
    this.#watchdog.stop();
    void this.#client.v2.session
      .interrupt({ sessionID: this.id }, { directory: this.directory })
      .catch((error: unknown) =>
        this.#logger.warn("interrupt after a stall failed", { sessionId: this.id, error }),
      );
  }

  #watchdogOrigin(turnId: string) {
    return {
      sessionId: this.id,
      turnId,
      at: Date.now(),
      native: {
        backend: "serve" as const,
        type: "watchdog",
        id: `watchdog_${turnId}_${this.#log.lastSeq}`,
      },
    };
  }
}
