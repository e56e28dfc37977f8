/**
 * The bridge: owns the way turns run (an OpenCode server, started and supervised or attached,
 * or `opencode run` processes), and the sessions on it. With `demo: true` it also runs the
 * built-in scripted model, so it works offline and without credentials.
 */
import { randomUUID } from "node:crypto";
import { BACKEND_KINDS, type BackendKind } from "../backends/backend.js";
import { ServeBackend } from "../backends/serve/serve-backend.js";
import { LegacyBackend } from "../backends/serve-legacy/legacy-backend.js";
import { RunEnvironment } from "../backends/subprocess/run-environment.js";
import { SubprocessBackend } from "../backends/subprocess/subprocess-backend.js";
import { OpencodeClient } from "../client/opencode-client.js";
import { waitForModel } from "../client/wait-for-model.js";
import { UsageError } from "../errors.js";
import { attachOpencode } from "../server/attach-opencode.js";
import type { OpencodeServerHandle } from "../server/server-handle.js";
import { type StartOpencodeOptions, startOpencode } from "../server/start-opencode.js";
import { demoProviderConfig } from "../testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../testing/scripted-model/index.js";
import { HttpTransport } from "../transport/http-transport.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { type PermissionPreset, permissionConfig } from "./permission-presets.js";
import { type AskTimeout, Session } from "./session.js";
import type { WatchdogBounds } from "./watchdog.js";

export interface ModelChoice {
  providerID: string;
  modelID: string;
}

export interface BridgeOptions {
  /** Default project directory of sessions. */
  directory: string;
  /**
   * How turns run (default `serve`, or the `OCB_BACKEND` environment variable):
   * `serve` (the `/api` surface), `serve-legacy` (`/session` + `/event`, every 1.x server),
   * `subprocess` (one `opencode run` per turn, no server). See `Session.capabilities`.
   */
  backend?: BackendKind;
  /** `subprocess` only: allow permission asks the config does not deny (`--auto`); default reject. */
  autoApprove?: boolean;
  /** What `steer` does while a turn runs on a backend that cannot steer (default `queue`). */
  steerFallback?: "queue" | "supersede";
  /**
   * Which tool calls wait for an answer (`session.replyPermission`): `ask` (edits and shell
   * commands), `allow-all`, `read-only` (edits and shell commands refused), or an OpenCode
   * `permission` config object. Default: the server's own config.
   */
  permissions?: PermissionPreset | Record<string, unknown>;
  /** Answers asks nobody answered in time (default: they wait). */
  askTimeout?: AskTimeout;
  /**
   * After a refused permission the model is told and the run goes on (default true; OpenCode's
   * `experimental.continue_loop_on_deny`). On 1.18.33's `/api` surface only a refusal with a
   * `message` goes on; one without stops the run (the turn ends `interrupted`).
   */
  continueAfterReject?: boolean;
  /** Run the built-in scripted model as provider `demo` and use it by default. */
  demo?: boolean;
  /** Default model of new sessions (`demo/demo-1` with `demo`). */
  model?: ModelChoice;
  /** OpenCode config for a managed server. */
  config?: Record<string, unknown>;
  /** Options for the managed server (ignored with `attach`; `binary`, `env` and `inheritUserConfig` also apply to `subprocess`). */
  server?: Omit<StartOpencodeOptions, "config" | "directory" | "logger">;
  /** Use a server someone else runs instead of starting one. */
  attach?: { url: string; password?: string };
  logger?: Logger;
  watchdog?: Partial<WatchdogBounds>;
  /** Bound on the /api model catalog listing the model before a session's first prompt (30 s). */
  modelReadyTimeoutMs?: number;
}

/** Parses `provider/model` (the model id may contain further slashes). */
export function parseModel(text: string): ModelChoice {
  const slash = text.indexOf("/");
  if (slash <= 0 || slash === text.length - 1) {
    throw new UsageError(
      `a model is written provider/model (for example demo/demo-1), got "${text}"`,
    );
  }
  return { providerID: text.slice(0, slash), modelID: text.slice(slash + 1) };
}

/** The backend named by `option`, else by `OCB_BACKEND`, else `serve`; anything else is refused. */
export function chooseBackend(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): BackendKind {
  const value = option ?? (env.OCB_BACKEND?.trim() || undefined) ?? "serve";
  if ((BACKEND_KINDS as readonly string[]).includes(value)) return value as BackendKind;
  const from = option === undefined ? "OCB_BACKEND" : "backend";
  throw new UsageError(
    `${from} must be one of ${BACKEND_KINDS.join(", ")}, got ${JSON.stringify(value)}`,
  );
}

/** Where turns run: a server (both serve backends) or `opencode run` processes. */
type Runner =
  | { kind: "serve" | "serve-legacy"; server: OpencodeServerHandle; client: OpencodeClient }
  | { kind: "subprocess"; environment: RunEnvironment };

export class Bridge {
  readonly backend: BackendKind;
  readonly #runner: Runner;
  readonly #options: BridgeOptions;
  readonly #model: ScriptedModel | undefined;
  readonly #logger: Logger;
  readonly #sessions = new Set<Session>();
  readonly #readyModels = new Set<string>();

  private constructor(runner: Runner, model: ScriptedModel | undefined, options: BridgeOptions) {
    this.backend = runner.kind;
    this.#runner = runner;
    this.#model = model;
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The OpenCode server's client (the serve backends only). */
  get client(): OpencodeClient {
    return this.#serve().client;
  }

  /** The OpenCode server (the serve backends only). */
  get server(): OpencodeServerHandle {
    return this.#serve().server;
  }

  /**
   * Starts (or attaches to) a server, or prepares `opencode run` for the `subprocess` backend;
   * with `demo`, the scripted model too.
   */
  static async start(options: BridgeOptions): Promise<Bridge> {
    const logger = options.logger ?? silentLogger;
    const kind = chooseBackend(options.backend);
    if (options.attach !== undefined) {
      if (kind === "subprocess") {
        throw new UsageError(
          "the subprocess backend runs no server; drop `attach` or pick a serve backend",
        );
      }
      if (options.permissions !== undefined) {
        throw new UsageError(
          "permissions cannot be set on an attached server (its config is its own); set them there",
        );
      }
      const server = await attachOpencode(options.attach.url, {
        ...(options.attach.password === undefined ? {} : { password: options.attach.password }),
      });
      return new Bridge(
        { kind, server, client: clientOf(server, options, logger) },
        undefined,
        options,
      );
    }
    const model = options.demo ? await startScriptedModel({ logger }) : undefined;
    try {
      const config = {
        ...options.config,
        ...(model === undefined ? {} : demoProviderConfig(model.url)),
        ...(options.permissions === undefined
          ? {}
          : { permission: permissionConfig(options.permissions) }),
        experimental: {
          continue_loop_on_deny: options.continueAfterReject ?? true,
          ...(options.config?.experimental as Record<string, unknown> | undefined),
        },
      };
      if (kind === "subprocess") {
        const { binary, env, inheritUserConfig } = options.server ?? {};
        const environment = await RunEnvironment.create({
          config,
          ...(binary === undefined ? {} : { binary }),
          ...(env === undefined ? {} : { env }),
          ...(inheritUserConfig === undefined ? {} : { inheritUserConfig }),
        });
        return new Bridge({ kind, environment }, model, options);
      }
      const server = await startOpencode({
        ...options.server,
        directory: options.directory,
        config,
        logger,
      });
      return new Bridge(
        { kind, server, client: clientOf(server, options, logger) },
        model,
        options,
      );
    } catch (error) {
      await model?.close();
      throw error;
    }
  }

  /** The model new sessions use unless told otherwise. */
  get defaultModel(): ModelChoice {
    if (this.#options.model) return this.#options.model;
    if (this.#model) return { providerID: "demo", modelID: "demo-1" };
    const configured = this.#options.config?.model;
    if (typeof configured === "string") return parseModel(configured);
    throw new UsageError(
      "no model: pass `model` (provider/model), set `model` in the OpenCode config, or use `demo`",
    );
  }

  /** Creates a session (upstream too, except on `subprocess`, where its first turn does) and follows it. */
  async createSession(
    options: { directory?: string; model?: ModelChoice; title?: string } = {},
  ): Promise<Session> {
    const directory = options.directory ?? this.#options.directory;
    const model = options.model ?? this.defaultModel;
    const runner = this.#runner;
    const sessionOptions = {
      directory,
      logger: this.#logger,
      ...(this.#options.watchdog === undefined ? {} : { watchdog: this.#options.watchdog }),
      ...(this.#options.steerFallback === undefined
        ? {}
        : { steerFallback: this.#options.steerFallback }),
      ...(this.#options.askTimeout === undefined ? {} : { askTimeout: this.#options.askTimeout }),
    };
    let session: Session;
    if (runner.kind === "subprocess") {
      const autoApprove = this.#options.autoApprove === true;
      session = new Session(
        `ocb_${randomUUID()}`,
        (context) => new SubprocessBackend(runner.environment, context, { model, autoApprove }),
        sessionOptions,
      );
    } else if (runner.kind === "serve-legacy") {
      const info = await runner.client.session.create(
        options.title === undefined ? {} : { title: options.title },
        { directory },
      );
      session = new Session(
        info.id,
        (context) => new LegacyBackend(runner.client, context, { model }),
        sessionOptions,
      );
    } else {
      await this.#modelReady(runner.client, directory, model);
      const info = await runner.client.v2.session.create(
        {
          model: { providerID: model.providerID, id: model.modelID },
          location: { directory },
          ...(options.title === undefined ? {} : { title: options.title }),
        },
        { directory },
      );
      session = new Session(
        info.id,
        (context) => new ServeBackend(runner.client, context),
        sessionOptions,
      );
    }
    this.#sessions.add(session);
    return session;
  }

  /** Stops following every session, then stops the server (or removes the run dirs) and the demo model. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#sessions].map((session) => session.close()));
    this.#sessions.clear();
    if (this.#runner.kind === "subprocess") await this.#runner.environment.close();
    else await this.#runner.server.close();
    await this.#model?.close();
  }

  #serve(): Extract<Runner, { client: OpencodeClient }> {
    if (this.#runner.kind === "subprocess") {
      throw new UsageError("the subprocess backend has no server or client");
    }
    return this.#runner;
  }

  /** A location's /api catalog loads after the server is ready; a prompt before it is lost. */
  async #modelReady(client: OpencodeClient, directory: string, model: ModelChoice): Promise<void> {
    const key = `${directory}\u0000${model.providerID}/${model.modelID}`;
    if (this.#readyModels.has(key)) return;
    await waitForModel(
      client,
      { providerID: model.providerID, id: model.modelID },
      { directory, timeoutMs: this.#options.modelReadyTimeoutMs ?? 30_000 },
    );
    this.#readyModels.add(key);
  }
}

function clientOf(server: OpencodeServerHandle, options: BridgeOptions, logger: Logger) {
  return new OpencodeClient(
    new HttpTransport({ url: server.url, password: server.password, logger }),
    { directory: options.directory },
  );
}
