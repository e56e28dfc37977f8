/**
 * Where a bridge's turns run, set up once at its start: an attached server, a managed server
 * (taken up from a dead predecessor or started), or the environment of `opencode run`; with a
 * `modelServer`, that too.
 */
import type { BackendKind } from "../../backends/backend.js";
import { RunEnvironment } from "../../backends/subprocess/run-environment.js";
import { UsageError } from "../../errors.js";
import { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { attachOpencode } from "../../server/attach-opencode.js";
import { sandboxSettings } from "../../server/sandbox/sandbox-options.js";
import type { OpencodeServerHandle } from "../../server/server-handle.js";
import type { Store } from "../../store/store.js";
import { HttpTransport } from "../../transport/http-transport.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import type { BridgeOptions } from "./bridge-options.js";
import { managedConfig } from "./managed-config.js";
import { managedServer } from "./managed-servers.js";
import type { ModelServer } from "./model-server.js";
import { reconnectPolicy } from "./reconnect-policy.js";

/** Where turns run: a server (both serve backends) or `opencode run` processes. */
export type Runner =
  | { kind: "serve" | "serve-legacy"; server: OpencodeServerHandle; client: OpencodeClient }
  | { kind: "subprocess"; environment: RunEnvironment };

/** A runner with a server: what the serve backends need. */
export type ServeRunner = Extract<Runner, { client: OpencodeClient }>;

/**
 * How long a managed server outlives a bridge killed without closing, when the bridge ran its
 * `modelServer` (by default): that model died with the bridge, so a successor could adopt the
 * server but run nothing on it. Waiting the usual 5 minutes would only leave an OpenCode
 * behind (`ocb serve --demo`, `npm start`, killed with SIGKILL). `server.orphanTimeoutMs` wins.
 */
const ORPHAN_TIMEOUT_WITH_MODEL_SERVER_MS = 0;

/** Starts (or attaches to) the server, or prepares `opencode run`; with a `modelServer`, that too. */
export async function launch(
  options: BridgeOptions,
  kind: BackendKind,
  store: Store,
): Promise<{ runner: Runner; model: ModelServer | undefined }> {
  const logger = options.logger ?? silentLogger;
  if (options.attach !== undefined) {
    return { runner: await attach(options, kind, options.attach, logger), model: undefined };
  }
  const model = await options.modelServer?.({ logger });
  try {
    const config = managedConfig(options, model?.config);
    if (kind === "subprocess") {
      const { binary, env, passEnv, inheritUserConfig, sandbox } = options.server ?? {};
      const environment = await RunEnvironment.create({
        config,
        directory: options.directory,
        ...(sandbox === undefined ? {} : { sandbox }),
        ...(binary === undefined ? {} : { binary }),
        ...(env === undefined ? {} : { env }),
        ...(passEnv === undefined ? {} : { passEnv }),
        ...(inheritUserConfig === undefined ? {} : { inheritUserConfig }),
      });
      return { runner: { kind, environment }, model };
    }
    const server = await managedServer(
      store,
      kind,
      {
        ...options.server,
        ...(model === undefined || options.server?.orphanTimeoutMs !== undefined
          ? {}
          : { orphanTimeoutMs: ORPHAN_TIMEOUT_WITH_MODEL_SERVER_MS }),
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

/** A server someone else runs: its config is its own, so nothing that would change it is taken. */
async function attach(
  options: BridgeOptions,
  kind: BackendKind,
  target: { url: string; password?: string },
  logger: Logger,
): Promise<Runner> {
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
  if (sandboxSettings(options.server?.sandbox).mode !== "off") {
    throw new UsageError(
      "a sandbox applies to a server the bridge starts; an attached server runs as it was started: drop `attach` or the sandbox",
    );
  }
  if (options.modelServer !== undefined) {
    throw new UsageError(
      "a model server cannot be configured into an attached server (its config is its own); " +
        "drop `modelServer`, or configure the provider on that server",
    );
  }
  const server = await attachOpencode(target.url, {
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return { kind, server, client: clientOf(server, options, logger) };
}

function clientOf(server: OpencodeServerHandle, options: BridgeOptions, logger: Logger) {
  const { initialDelayMs, maxDelayMs } = reconnectPolicy(options.reconnect);
  return new OpencodeClient(
    new HttpTransport({
      url: server.url,
      password: server.password,
      logger,
      reconnectBackoff: { initialMs: initialDelayMs, maxMs: maxDelayMs },
    }),
    { directory: options.directory },
  );
}
