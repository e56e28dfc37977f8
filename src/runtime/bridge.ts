/**
 * The bridge: owns the way turns run (an OpenCode server, started and supervised or attached,
 * or `opencode run` processes), and the sessions on it. With a `modelServer` (the scripted demo
 * model, from `opencode-bridge/testing`) it also runs that, so it works offline.
 */
import { createHash, randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { BACKEND_KINDS, type BackendKind } from "../backends/backend.js";
import { ServeBackend } from "../backends/serve/serve-backend.js";
import { LegacyBackend } from "../backends/serve-legacy/legacy-backend.js";
import { RunEnvironment } from "../backends/subprocess/run-environment.js";
import { SubprocessBackend } from "../backends/subprocess/subprocess-backend.js";
import { OpencodeClient } from "../client/opencode-client.js";
import { waitForModel } from "../client/wait-for-model.js";
import { AbortError, UsageError } from "../errors.js";
import type { CanonicalEvent, ModelRef } from "../events/canonical.js";
import { AdoptedServer } from "../server/adopted-server.js";
import { attachOpencode } from "../server/attach-opencode.js";
import { isolatedDirsAt } from "../server/isolated-dirs.js";
import { isProcessGroupAlive } from "../server/process-group.js";
import type { OpencodeServerHandle } from "../server/server-handle.js";
import type { StartOpencodeOptions } from "../server/start-opencode.js";
import { SupervisedServer } from "../server/supervised-server.js";
import { defaultStorePath } from "../store/default-store-path.js";
import { SqliteStore } from "../store/sqlite-store.js";
import type { ServerRecord, SessionRecord, Store } from "../store/store.js";
import { HttpTransport } from "../transport/http-transport.js";
import { throwIfAborted } from "../util/abort.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { isProcessRunning } from "../util/process-liveness.js";
import { holdForTest } from "../util/test-hold.js";
import { experimentalConfig } from "./experimental-config.js";
import type { ModelServer, ModelServerFactory } from "./model-server.js";
import { type PermissionPreset, permissionConfig } from "./permission-presets.js";
import { type AskTimeout, type BackendFactory, Session } from "./session.js";
import type { WatchdogBounds } from "./watchdog.js";

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
   * `message` goes on; one without stops the run (the turn ends `interrupted`). Merged into
   * `config.experimental`: when only the config sets `continue_loop_on_deny` its value is used;
   * both set and disagreeing is a UsageError.
   */
  continueAfterReject?: boolean;
  /**
   * A model server to run beside OpenCode, configured into it, its model the default (for
   * example `demoModelServer` from `opencode-bridge/testing`: the scripted model, provider `demo`).
   * Not with `attach`.
   */
  modelServer?: ModelServerFactory;
  /** Default model of new sessions (else the `modelServer`'s, else the config's `model`). */
  model?: ModelRef;
  /** OpenCode config for a managed server. */
  config?: Record<string, unknown>;
  /** Options for the managed server (ignored with `attach`; `binary`, `env` and `inheritUserConfig` also apply to `subprocess`). */
  server?: Omit<StartOpencodeOptions, "config" | "directory" | "logger">;
  /** Use a server someone else runs instead of starting one. */
  attach?: { url: string; password?: string };
  logger?: Logger;
  watchdog?: Partial<WatchdogBounds>;
  /**
   * How long a running turn waits for its session's lost streams to come back before it ends
   * `failed` (`connection-lost`); default 3 minutes. The streams themselves reconnect for as
   * long as the session is open (see `Session.connection`).
   */
  connectionLostAfterMs?: number;
  /**
   * Where transcripts and session records are kept: a `Store`, a file path, or `:memory:`
   * (default: `store.db` in the user's data directory, `$XDG_DATA_HOME/opencode-bridge/`).
   */
  store?: Store | string;
  /** Releases a session left idle this long (its upstream session is kept; default: never). */
  idleReleaseMs?: number;
  /** Bound on the /api model catalog listing the model before a session's first prompt (30 s). */
  modelReadyTimeoutMs?: number;
  /** Aborts `Bridge.start` (what it started so far is stopped; it rejects with AbortError). */
  signal?: AbortSignal;
}

/** Parses `provider/model` (the model id may contain further slashes). */
export function parseModel(text: string): ModelRef {
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

export class Bridge implements AsyncDisposable {
  readonly backend: BackendKind;
  readonly #runner: Runner;
  readonly #options: BridgeOptions;
  readonly #model: ModelServer | undefined;
  readonly #logger: Logger;
  readonly #sessions = new Set<Session>();
  readonly #readyModels = new Set<string>();

  readonly #store: Store;
  readonly #ownsStore: boolean;

  private constructor(
    runner: Runner,
    model: ModelServer | undefined,
    options: BridgeOptions,
    store: { store: Store; owned: boolean },
  ) {
    this.#store = store.store;
    this.#ownsStore = store.owned;
    this.backend = runner.kind;
    if (runner.kind !== "subprocess" && runner.server instanceof SupervisedServer) {
      // A crash fails the running turns at once, with the reason; the server then comes back.
      runner.server.onCrash((exit) => {
        // The restarted server loads its model catalog anew: wait for it before prompting.
        this.#readyModels.clear();
        for (const session of this.#sessions) session.serverExited(exit);
      });
    }
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
   * with a `modelServer`, that too.
   */
  static async start(options: BridgeOptions): Promise<Bridge> {
    const kind = chooseBackend(options.backend);
    const store = openStore(options.store);
    try {
      const { runner, model } = await launch(options, kind, store.store);
      const bridge = new Bridge(runner, model, options, store);
      if (options.signal?.aborted) {
        // Aborted just as the start finished: stop what it started, as an abort mid-way does.
        await bridge.close();
        throw new AbortError("starting the bridge", { cause: options.signal.reason });
      }
      return bridge;
    } catch (error) {
      if (store.owned) store.store.close();
      throw error;
    }
  }

  /** The model new sessions use unless told otherwise. */
  get defaultModel(): ModelRef {
    if (this.#options.model) return this.#options.model;
    if (this.#model) return this.#model.defaultModel;
    const configured = this.#options.config?.model;
    if (typeof configured === "string") return parseModel(configured);
    throw new UsageError(
      "no model: pass `model` (provider/model), set `model` in the OpenCode config, or pass a `modelServer`",
    );
  }

  /** Creates a session (upstream too, except on `subprocess`, where its first turn does) and follows it. */
  async createSession(
    options: { directory?: string; model?: ModelRef; title?: string; signal?: AbortSignal } = {},
  ): Promise<Session> {
    throwIfAborted(options.signal, "creating a session");
    const directory = options.directory ?? this.#options.directory;
    const model = options.model ?? this.defaultModel;
    const runner = this.#runner;
    let id: string;
    if (runner.kind === "subprocess") {
      id = `ocb_${randomUUID()}`;
    } else if (runner.kind === "serve-legacy") {
      const info = await runner.client.session.create(
        options.title === undefined ? {} : { title: options.title },
        { directory, ...(options.signal === undefined ? {} : { signal: options.signal }) },
      );
      id = info.id;
    } else {
      await this.#modelReady(runner.client, directory, model, options.signal);
      const info = await runner.client.v2.session.create(
        {
          model: { providerID: model.providerID, id: model.modelID },
          location: { directory },
          ...(options.title === undefined ? {} : { title: options.title }),
        },
        { directory, ...(options.signal === undefined ? {} : { signal: options.signal }) },
      );
      id = info.id;
    }
    const now = Date.now();
    this.#store.saveSession({
      id,
      backend: runner.kind,
      ...(runner.kind === "subprocess" ? {} : { upstreamId: id }),
      directory,
      ...(options.title === undefined ? {} : { title: options.title }),
      state: "open",
      createdAt: now,
      updatedAt: now,
    });
    return this.#follow(id, directory, model, undefined);
  }

  /**
   * Follows a session kept in the store again (after a restart of the bridge, or one that was
   * released): its kept events are read back, and on `serve` a turn that was running carries on
   * from the stored cursor and ends once. Other backends cannot replay what they missed: a turn
   * left running ends `failed` (`bridge-restarted`). `signal` is checked before anything is done
   * (opening reads the store and starts following: nothing to abort mid-way).
   */
  async openSession(
    id: string,
    options: { model?: ModelRef; signal?: AbortSignal } = {},
  ): Promise<Session> {
    throwIfAborted(options.signal, `opening session ${id}`);
    const record = this.#store.session(id);
    if (record === undefined) {
      throw new UsageError(
        `no session ${JSON.stringify(id)} in the store; list them with \`ocb sessions\``,
      );
    }
    if (record.backend !== this.backend) {
      throw new UsageError(
        `session ${id} runs on the ${record.backend} backend, this bridge on ${this.backend}; ` +
          `start the bridge with backend "${record.backend}" to open it`,
      );
    }
    if (record.state === "killed")
      throw new UsageError(`session ${id} was killed; it cannot be opened`);
    const open = [...this.#sessions].find((session) => session.id === id);
    if (open !== undefined) return open;
    this.#store.saveSession({ ...record, state: "open", updatedAt: Date.now() });
    const resume = { events: this.#store.read(id), cursor: this.#store.cursor(id) };
    return this.#follow(
      id,
      record.directory,
      options.model ?? this.defaultModel,
      resume,
      record.upstreamId,
    );
  }

  /** The sessions kept in the store, oldest first. */
  sessions(): SessionRecord[] {
    return this.#store.sessions();
  }

  /** Stops following a session and frees what it holds; the upstream session is kept (`openSession` takes it up again). */
  async releaseSession(session: Session): Promise<void> {
    this.#sessions.delete(session); // not handed out by openSession while it closes
    await session.close();
    this.#markSession(session, "released");
  }

  /**
   * Stops following a session and deletes it upstream for good; its transcript stays in the store.
   * An abort of `signal` before the delete went out leaves the session followed and upstream.
   */
  async killSession(session: Session, options: { signal?: AbortSignal } = {}): Promise<void> {
    const { signal } = options;
    throwIfAborted(signal, `killing session ${session.id}`);
    await session.interrupt(signal === undefined ? {} : { signal }).catch(() => {});
    throwIfAborted(signal, `killing session ${session.id}`);
    await session.close();
    this.#sessions.delete(session);
    const runner = this.#runner;
    if (runner.kind !== "subprocess" && session.upstreamId !== undefined) {
      await runner.client.session.delete(
        { sessionID: session.upstreamId },
        { directory: session.directory, ...(signal === undefined ? {} : { signal }) },
      );
    }
    this.#markSession(session, "killed");
  }

  #markSession(session: Session, state: SessionRecord["state"]): void {
    const record = this.#store.session(session.id);
    if (record === undefined) return;
    this.#store.saveSession({
      ...record,
      ...(session.upstreamId === undefined ? {} : { upstreamId: session.upstreamId }),
      state,
      updatedAt: Date.now(),
    });
  }

  #follow(
    id: string,
    directory: string,
    model: ModelRef,
    resume: { events: CanonicalEvent[]; cursor: string | undefined } | undefined,
    upstreamId?: string,
  ): Session {
    const runner = this.#runner;
    const factory: BackendFactory =
      runner.kind === "subprocess"
        ? (context) =>
            new SubprocessBackend(runner.environment, context, {
              model,
              autoApprove: this.#options.autoApprove === true,
              ...(upstreamId === undefined ? {} : { upstreamId }),
            })
        : runner.kind === "serve-legacy"
          ? (context) => new LegacyBackend(runner.client, context, { model })
          : (context) => new ServeBackend(runner.client, context);
    const session = new Session(id, factory, {
      directory,
      logger: this.#logger,
      store: this.#store,
      ...(runner.kind === "serve"
        ? {
            beforeSend: ({ reconnected, signal }) =>
              this.#serverReady(runner, directory, model, reconnected, signal),
          }
        : {}),
      ...(resume === undefined ? {} : { resume }),
      ...(this.#options.watchdog === undefined ? {} : { watchdog: this.#options.watchdog }),
      ...(this.#options.steerFallback === undefined
        ? {}
        : { steerFallback: this.#options.steerFallback }),
      ...(this.#options.askTimeout === undefined ? {} : { askTimeout: this.#options.askTimeout }),
      ...(this.#options.connectionLostAfterMs === undefined
        ? {}
        : { connectionLostAfterMs: this.#options.connectionLostAfterMs }),
    });
    this.#sessions.add(session);
    this.#watchIdle(session);
    return session;
  }

  /** Releases a session left idle for `idleReleaseMs` (checked every tenth of it). */
  #watchIdle(session: Session): void {
    const after = this.#options.idleReleaseMs;
    if (after === undefined) return;
    const timer = setInterval(
      () => {
        if (!this.#sessions.has(session)) {
          clearInterval(timer);
          return;
        }
        const idleSince = session.idleSince;
        if (idleSince !== undefined && Date.now() - idleSince >= after) {
          clearInterval(timer);
          void this.releaseSession(session).catch((error: unknown) =>
            this.#logger.warn("releasing an idle session failed", { sessionId: session.id, error }),
          );
        }
      },
      Math.max(50, Math.floor(after / 10)),
    );
    timer.unref();
  }

  /** Stops following every session, then stops the server (or removes the run dirs) and the model server. */
  async close(): Promise<void> {
    const sessions = [...this.#sessions];
    this.#sessions.clear();
    await Promise.allSettled(sessions.map((session) => session.close()));
    try {
      for (const session of sessions) this.#markSession(session, "released");
    } catch (error) {
      this.#logger.warn("could not mark the sessions released in the store", { error });
    } finally {
      await this.#stopRunner();
    }
  }

  /** `await using bridge = await Bridge.start(…)` closes it at the end of the block (same as `close()`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Stops the server (or removes the run dirs), the store it owns and the model server. */
  async #stopRunner(): Promise<void> {
    if (this.#runner.kind === "subprocess") {
      await this.#runner.environment.close();
    } else {
      const { server } = this.#runner;
      const key = managedServerKey(this.backend, this.#options.directory);
      await server.close();
      // Stopped on purpose: nothing for a successor to take up (unless another bridge's now).
      try {
        if (this.#store.server(key)?.pid === server.pid) this.#store.deleteServer(key);
      } catch (error) {
        this.#logger.warn("could not forget the server in the store", { error });
      }
    }
    if (this.#ownsStore) this.#store.close();
    await this.#model?.close();
  }

  #serve(): Extract<Runner, { client: OpencodeClient }> {
    if (this.#runner.kind === "subprocess") {
      throw new UsageError("the subprocess backend has no server or client");
    }
    return this.#runner;
  }

  /**
   * The server is up (a restart after a crash has finished) and lists the model. After the
   * session's streams lost the server and reached it again, the model is looked up again: an
   * attached server may have been restarted, and a restarted server loads its catalog anew.
   */
  async #serverReady(
    runner: Extract<Runner, { client: OpencodeClient }>,
    directory: string,
    model: ModelRef,
    reconnected: boolean,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    await holdForTest("admission", signal);
    if (runner.server instanceof SupervisedServer) await runner.server.restarted(signal);
    if (reconnected) this.#readyModels.delete(modelKey(directory, model));
    await this.#modelReady(runner.client, directory, model, signal);
  }

  /** A location's /api catalog loads after the server is ready; a prompt before it is lost. */
  async #modelReady(
    client: OpencodeClient,
    directory: string,
    model: ModelRef,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const key = modelKey(directory, model);
    if (this.#readyModels.has(key)) return;
    await holdForTest("catalog", signal);
    await waitForModel(
      client,
      { providerID: model.providerID, id: model.modelID },
      {
        directory,
        timeoutMs: this.#options.modelReadyTimeoutMs ?? 30_000,
        ...(signal === undefined ? {} : { signal }),
      },
    );
    this.#readyModels.add(key);
  }
}

/** Which models are known to be ready: one key per location and model. */
function modelKey(directory: string, model: ModelRef): string {
  return `${directory}\u0000${model.providerID}/${model.modelID}`;
}

function clientOf(server: OpencodeServerHandle, options: BridgeOptions, logger: Logger) {
  return new OpencodeClient(
    new HttpTransport({ url: server.url, password: server.password, logger }),
    { directory: options.directory },
  );
}

/** Starts (or attaches to) the server, or prepares `opencode run`; with a `modelServer`, that too. */
async function launch(
  options: BridgeOptions,
  kind: BackendKind,
  store: Store,
): Promise<{ runner: Runner; model: ModelServer | undefined }> {
  const logger = options.logger ?? silentLogger;
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
    if (options.modelServer !== undefined) {
      throw new UsageError(
        "a model server cannot be configured into an attached server (its config is its own); " +
          "drop `modelServer`, or configure the provider on that server",
      );
    }
    const server = await attachOpencode(options.attach.url, {
      ...(options.attach.password === undefined ? {} : { password: options.attach.password }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return {
      runner: { kind, server, client: clientOf(server, options, logger) },
      model: undefined,
    };
  }
  const model = await options.modelServer?.({ logger });
  try {
    const config = {
      ...options.config,
      ...model?.config,
      ...(options.permissions === undefined
        ? {}
        : { permission: permissionConfig(options.permissions) }),
      experimental: experimentalConfig(options.config?.experimental, options.continueAfterReject),
    };
    if (kind === "subprocess") {
      const { binary, env, inheritUserConfig } = options.server ?? {};
      const environment = await RunEnvironment.create({
        config,
        ...(binary === undefined ? {} : { binary }),
        ...(env === undefined ? {} : { env }),
        ...(inheritUserConfig === undefined ? {} : { inheritUserConfig }),
      });
      return { runner: { kind, environment }, model };
    }
    const server = await managedServer(
      store,
      kind,
      {
        ...options.server,
        directory: options.directory,
        config,
        logger,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      logger,
    );
    return { runner: { kind, server, client: clientOf(server, options, logger) }, model };
  } catch (error) {
    await model?.close();
    throw error;
  }
}

/** The store the options name: one given (kept open), a path or `:memory:` (opened, and closed with the bridge). */
function openStore(option: BridgeOptions["store"]): { store: Store; owned: boolean } {
  if (typeof option === "object") return { store: option, owned: false };
  return { store: SqliteStore.open(option ?? defaultStorePath()), owned: true };
}

/**
 * The managed server: the one a previous bridge on this store left running for the same
 * directory and config (it was killed before it could stop it; its sessions and running turns
 * are there to adopt), else a new one. A leftover that cannot be taken up is stopped.
 */
async function managedServer(
  store: Store,
  kind: BackendKind,
  options: StartOpencodeOptions,
  logger: Logger,
): Promise<SupervisedServer> {
  const key = managedServerKey(kind, options.directory ?? process.cwd());
  const configHash = createHash("sha256")
    .update(JSON.stringify([options.config ?? {}, options.env ?? {}, options.binary ?? ""]))
    .digest("hex");
  const previous = store.server(key);
  let server: SupervisedServer | undefined;
  if (previous !== undefined && !isProcessRunning(previous.ownerPid)) {
    if (previous.configHash === configHash) {
      server = await SupervisedServer.adopt(
        {
          ...previous,
          ...(previous.keeper === undefined ? {} : { keeperSocket: previous.keeper }),
        },
        options,
      );
      if (server !== undefined) {
        logger.info("took up the server a previous bridge left running", { url: server.url });
      }
    }
    if (server === undefined) await stopLeftover(previous, logger);
  }
  server ??= await SupervisedServer.start(options);
  const started = server;
  const remember = () => {
    if (started.pid === undefined) return;
    try {
      store.saveServer(key, {
        url: started.url,
        username: started.username,
        ...(started.password === undefined ? {} : { password: started.password }),
        pid: started.pid,
        ...(started.root === undefined ? {} : { root: started.root }),
        ownerPid: process.pid,
        configHash,
        ...(started.keeperSocket === undefined ? {} : { keeper: started.keeperSocket }),
      });
    } catch (error) {
      // Costs only the take-up after a crash of this process; the server runs.
      logger.warn("could not record the server in the store", { error });
    }
  };
  remember();
  started.onRestart(remember); // a new process after a crash: a successor must find that one
  return server;
}

/** Which managed server a store remembers: one per backend kind and directory. */
export function managedServerKey(kind: BackendKind, directory: string): string {
  return `managed:${kind}:${resolve(directory)}`;
}

/** A leftover server of a dead bridge that cannot be taken up: stop it and remove its dirs. */
async function stopLeftover(record: ServerRecord, logger: Logger): Promise<void> {
  // A recorded pid may have been reused since (a reboot): only a group that still answers
  // as that server, with its password, is signalled.
  const leftover = await AdoptedServer.take({
    url: record.url,
    username: record.username,
    password: record.password,
    pid: record.pid,
    dirs: undefined,
  });
  if (leftover !== undefined) {
    logger.info("stopping a server a previous bridge left running", { pid: record.pid });
    await leftover.close().catch(() => {});
  }
  if (record.root !== undefined && !isProcessGroupAlive(record.pid)) {
    await isolatedDirsAt(record.root).remove();
  }
}
