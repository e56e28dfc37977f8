/**
 * The `subprocess` backend: one `opencode run --format json` per turn, each continuing the
 * same OpenCode session with `--session`. It needs no server, which makes it the known-good
 * path a bad day falls back to. It cannot steer or queue (the runtime holds inputs), prints
 * whole parts only (no deltas), and answers permission asks itself: rejected, or allowed with
 * `autoApprove` (`--auto`). An interrupt kills the process group; the session goes on.
 */
import { UsageError } from "../../errors.js";
import type { Normalized } from "../../events/build.js";
import type { ModelRef } from "../../events/canonical.js";
import {
  initialRunState,
  normalizeRunLine,
  type RunNormalizerState,
  runEnded,
  runStarted,
} from "../../events/normalize-run.js";
import { normalizeSafely } from "../../events/safe-normalize.js";
import { parseSafely } from "../../opencode-protocol/parse-safely.js";
import { parseRunLine } from "../../opencode-protocol/run/events.js";
import { describeError } from "../../util/describe-error.js";
import {
  type BackendContext,
  mintInputId,
  type PromptRequest,
  type SessionBackend,
} from "../backend.js";
import { BACKEND_CAPABILITIES } from "../capabilities.js";
import { modelSwitchedEvent } from "../model-switched.js";
import type { RunEnvironment } from "./run-environment.js";
import { runLineValue } from "./run-line.js";
import { RunProcess } from "./run-process.js";

export interface SubprocessBackendOptions {
  model: ModelRef;
  /** Allow every permission ask that the config does not deny (`--auto`). Default: reject them. */
  autoApprove?: boolean;
  /** Continue this OpenCode session instead of starting one with the first turn. */
  upstreamId?: string;
}

const NOTHING_TO_ANSWER =
  "the subprocess backend asks nobody: `opencode run` rejects every permission ask (or allows " +
  "it with autoApprove) and has no questions; use a serve backend to answer asks";

interface CurrentRun {
  process: RunProcess;
  interrupted: boolean;
  /** Settles once the turn's end has been published. */
  finished: Promise<void>;
}

export class SubprocessBackend implements SessionBackend {
  readonly kind = "subprocess" as const;
  readonly capabilities = BACKEND_CAPABILITIES.subprocess;
  readonly #environment: RunEnvironment;
  readonly #context: BackendContext;
  readonly #autoApprove: boolean;
  #model: ModelRef;
  #state: RunNormalizerState;
  #current: CurrentRun | undefined;
  #closed = false;

  constructor(
    environment: RunEnvironment,
    context: BackendContext,
    options: SubprocessBackendOptions,
  ) {
    this.#environment = environment;
    this.#context = context;
    this.#model = options.model;
    this.#autoApprove = options.autoApprove === true;
    this.#state = initialRunState(context.sessionId, options.upstreamId);
  }

  get upstreamId(): string | undefined {
    return this.#state.upstreamId;
  }

  async ready(): Promise<void> {}

  check(request: Omit<PromptRequest, "signal">): void {
    filesOf(request);
  }

  async prompt(request: PromptRequest): Promise<{ inputId: string }> {
    const files = filesOf(request);
    // The runtime holds inputs while a turn runs; a run still settling is waited for.
    await this.#current?.finished;
    if (this.#closed) throw new UsageError("the session is closed");
    const inputId = request.inputId ?? mintInputId();
    this.#apply(
      runStarted(this.#state, inputId, {
        text: request.text,
        announced: request.announced === true,
      }),
    );
    this.#spawn(request.text, files);
    return { inputId };
  }

  async replyPermission(): Promise<void> {
    throw new UsageError(NOTHING_TO_ANSWER);
  }

  async answerQuestion(): Promise<void> {
    throw new UsageError(NOTHING_TO_ANSWER);
  }

  async rejectQuestion(): Promise<void> {
    throw new UsageError(NOTHING_TO_ANSWER);
  }

  async interrupt(): Promise<void> {
    const current = this.#current;
    if (current === undefined) return;
    current.interrupted = true;
    await current.process.stop();
    await current.finished;
  }

  async switchModel(model: ModelRef): Promise<void> {
    this.#model = model;
    this.#context.sink(modelSwitchedEvent(this.#context.sessionId, this.kind, model));
  }

  async abandonTurn(): Promise<void> {
    this.#state = { ...this.#state, turn: undefined };
    const current = this.#current;
    if (current === undefined) return;
    await current.process.stop();
    await current.finished;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const current = this.#current;
    if (current === undefined) return;
    current.interrupted = true;
    await current.process.stop();
    await current.finished;
  }

  #spawn(text: string, files: string[]): void {
    const args = ["run", "--format", "json", "--thinking"];
    args.push("--model", `${this.#model.providerID}/${this.#model.modelID}`);
    if (this.#state.upstreamId !== undefined) args.push("--session", this.#state.upstreamId);
    if (this.#autoApprove) args.push("--auto");
    for (const file of files) args.push("--file", file);
    // After `--` a prompt that starts with a dash is still the message.
    args.push("--", text);
    this.#context.logger.debug("spawning opencode run", { args: args.slice(0, -1) });
    let process: RunProcess;
    try {
      process = new RunProcess({
        command: this.#environment.command(args, this.#context.directory),
        cwd: this.#context.directory,
        env: this.#environment.env,
        logger: this.#context.logger,
        onLine: (line) => this.#line(line),
      });
    } catch (error) {
      // spawn() throws at once for what it refuses outright (an argument too long, a NUL byte).
      this.#apply(
        runEnded(this.#state, {
          code: null,
          signal: null,
          interrupted: false,
          stderrTail: [`could not start opencode run: ${describeError(error)}`],
        }),
      );
      return;
    }
    const current: CurrentRun = {
      process,
      interrupted: false,
      finished: process.ended
        .then((end) => {
          const stderrTail =
            end.spawnError === undefined
              ? end.stderrTail
              : [`could not run ${this.#environment.binary}: ${describeError(end.spawnError)}`];
          this.#apply(
            runEnded(this.#state, {
              code: end.code,
              signal: end.signal,
              interrupted: current.interrupted,
              stderrTail,
            }),
          );
          if (this.#current === current) this.#current = undefined;
        })
        .catch((error: unknown) =>
          this.#context.logger.error("the end of an opencode run could not be handled", { error }),
        ),
    };
    this.#current = current;
  }

  #line(line: string): void {
    const raw = runLineValue(line);
    if (raw === undefined) return;
    try {
      const parsed = parseSafely(parseRunLine, raw);
      this.#apply(
        normalizeSafely(normalizeRunLine, this.#state, parsed, { backend: "subprocess" }),
      );
    } catch (error) {
      this.#context.logger.warn("an opencode run line could not be read", {
        error: describeError(error),
        line: line.slice(0, 200),
      });
    }
  }

  #apply(result: Normalized<RunNormalizerState>): void {
    this.#state = result.state;
    for (const event of result.events) this.#context.sink(event);
  }
}

/** The paths to attach; throws a UsageError for what `opencode run` cannot take. */
function filesOf(request: Omit<PromptRequest, "signal">): string[] {
  if (request.agents !== undefined && request.agents.length > 0) {
    throw new UsageError(
      "the subprocess backend cannot mention agents in a prompt; use the serve backends",
    );
  }
  return (request.files ?? []).map((file) => {
    if (file.path !== undefined) return file.path;
    throw new UsageError(
      `the subprocess backend attaches local files only, got ${JSON.stringify(file.ref.slice(0, 60))}; ` +
        "write the data to a file in the session directory first, or use a serve backend",
    );
  });
}
