/**
 * The bridge: owns an OpenCode server (started and supervised, or attached), its client, and
 * the sessions that run on it. With `demo: true` it also runs the built-in scripted model, so it
 * works offline and without credentials.
 */
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
import { Session } from "./session.js";
import type { WatchdogBounds } from "./watchdog.js";

export interface ModelChoice {
  providerID: string;
  modelID: string;
}

export interface BridgeOptions {
  /** Default project directory of sessions. */
  directory: string;
  /** Run the built-in scripted model as provider `demo` and use it by default. */
  demo?: boolean;
  /** Default model of new sessions (`demo/demo-1` with `demo`). */
  model?: ModelChoice;
  /** OpenCode config for a managed server. */
  config?: Record<string, unknown>;
  /** Options for the managed server (ignored with `attach`). */
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

export class Bridge {
  readonly client: OpencodeClient;
  readonly server: OpencodeServerHandle;
  readonly #options: BridgeOptions;
  readonly #model: ScriptedModel | undefined;
  readonly #logger: Logger;
  readonly #sessions = new Set<Session>();
  readonly #readyModels = new Set<string>();

  private constructor(
    server: OpencodeServerHandle,
    model: ScriptedModel | undefined,
    options: BridgeOptions,
  ) {
    this.server = server;
    this.#model = model;
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.client = new OpencodeClient(
      new HttpTransport({ url: server.url, password: server.password, logger: this.#logger }),
      { directory: options.directory },
    );
  }

  /** Starts (or attaches to) a server; with `demo`, the scripted model too. */
  static async start(options: BridgeOptions): Promise<Bridge> {
    const logger = options.logger ?? silentLogger;
    if (options.attach !== undefined) {
      const server = await attachOpencode(options.attach.url, {
        ...(options.attach.password === undefined ? {} : { password: options.attach.password }),
      });
      return new Bridge(server, undefined, options);
    }
    const model = options.demo ? await startScriptedModel({ logger }) : undefined;
    try {
      const config = model
        ? { ...options.config, ...demoProviderConfig(model.url) }
        : (options.config ?? {});
      const server = await startOpencode({
        ...options.server,
        directory: options.directory,
        config,
        logger,
      });
      return new Bridge(server, model, options);
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

  /** Creates an upstream session and follows it. */
  async createSession(
    options: { directory?: string; model?: ModelChoice; title?: string } = {},
  ): Promise<Session> {
    const directory = options.directory ?? this.#options.directory;
    const model = options.model ?? this.defaultModel;
    await this.#modelReady(directory, model);
    const info = await this.client.v2.session.create(
      {
        model: { providerID: model.providerID, id: model.modelID },
        location: { directory },
        ...(options.title === undefined ? {} : { title: options.title }),
      },
      { directory },
    );
    const session = new Session(this.client, info.id, {
      directory,
      logger: this.#logger,
      ...(this.#options.watchdog === undefined ? {} : { watchdog: this.#options.watchdog }),
    });
    this.#sessions.add(session);
    return session;
  }

  /** Stops following every session, then stops the server and the demo model. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#sessions].map((session) => session.close()));
    this.#sessions.clear();
    await this.server.close();
    await this.#model?.close();
  }

  /** A location's /api catalog loads after the server is ready; a prompt before it is lost. */
  async #modelReady(directory: string, model: ModelChoice): Promise<void> {
    const key = `${directory}\u0000${model.providerID}/${model.modelID}`;
    if (this.#readyModels.has(key)) return;
    await waitForModel(
      this.client,
      { providerID: model.providerID, id: model.modelID },
      { directory, timeoutMs: this.#options.modelReadyTimeoutMs ?? 30_000 },
    );
    this.#readyModels.add(key);
  }
}
