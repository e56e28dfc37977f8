/**
 * The managed launcher: starts `opencode serve` with its own password, port and (by
 * default) isolated config dirs, waits until it is really ready, and hands back a handle
 * whose `close()` stops it together with everything it started.
 */
import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { AbortError, ServerStartError, UsageError } from "../errors.js";
import { throwIfAborted, withDeadline } from "../util/abort.js";
import { describeError } from "../util/describe-error.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { findFreePort, isPortFree } from "./free-port.js";
import { basicAuthHeader, HEALTH_PATH, type HealthStatus, waitForHealth } from "./health.js";
import { type IsolatedDirs, temporaryRootOf } from "./isolated-dirs.js";
import { LogTail, SecretRedactor } from "./log-tail.js";
import { ManagedServer } from "./managed-server.js";
import { OpencodeProcess, type ProcessEnd } from "./opencode-process.js";
import { opencodeStateDirs, prepareOpencodeEnv } from "./prepared-env.js";
import { resolveOpencodeBinary } from "./resolve-binary.js";
import { Sandbox } from "./sandbox/sandbox.js";
import type { SandboxMode, SandboxOptions } from "./sandbox/sandbox-options.js";
import { serverUsername } from "./server-env.js";
import type { OpencodeServerHandle } from "./server-handle.js";
import { DEFAULT_ORPHAN_TIMEOUT_MS } from "./server-keeper.js";

/** How long `startOpencode` waits by default; cold starts of 9-20 s have been reported. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;

export interface StartOpencodeOptions {
  /** Working directory of the server (default `process.cwd()`); must exist. */
  directory?: string;
  /** OpenCode config, passed as `OPENCODE_CONFIG_CONTENT`; `autoupdate: false` and `share: "disabled"` are added unless set. */
  config?: Record<string, unknown>;
  /** Extra environment variables for the server. */
  env?: Record<string, string>;
  /**
   * Variables of this process's environment the server (and every tool it runs) also gets,
   * besides the allow-list (system basics, locale, proxies, provider keys by their usual names:
   * `passed-env.ts`); `NAME_*` passes a prefix. `OCB_*` never passes.
   */
  passEnv?: readonly string[];
  /** Basic auth password: default a random one; `false` runs the server without (anything on the host can drive it). */
  password?: string | false;
  /** Port to listen on; default 0 picks a free one. */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`). */
  hostname?: string;
  /** Bound for the whole start, from spawn to a healthy answer (default 30 000 ms). */
  startupTimeoutMs?: number;
  /** Aborts the start (the running server afterwards is stopped with `close()`). */
  signal?: AbortSignal;
  logger?: Logger;
  /**
   * false (default): config, credentials and data live in a fresh temp dir removed on close.
   * true: the server uses the user's own OpenCode config, credentials and sessions.
   */
  inheritUserConfig?: boolean;
  /**
   * Where OpenCode keeps its own data (its sessions, caches and the config it is given), kept
   * when the server stops, so that a server started there later has the sessions of the one
   * before (a bridge restarted after a full stop goes on with its kept sessions). Default: a
   * fresh temp dir, removed on close. Made, readable by the owner only, when missing; never
   * deleted. Not with `inheritUserConfig`.
   */
  dataDir?: string;
  /**
   * @internal The supervised server's restart; not for users.
   * Isolated dirs to run in again (a restart after a crash keeps the sessions); the caller
   * owns them: `close()` leaves them in place.
   */
  isolatedDirs?: IsolatedDirs;
  /** The `opencode` executable (default: `resolveOpencodeBinary()`). */
  binary?: string;
  /**
   * Runs the server, and every tool it runs, inside a bubblewrap sandbox (docs/security.md):
   * `read-only` lets it write only its own state, `workspace-write` the directory too; in both
   * the user's credentials are not readable. Default `off`. Needs `bwrap` (Linux): without it,
   * the start fails with a UsageError that says how to install it.
   */
  sandbox?: SandboxMode | SandboxOptions;
  /**
   * How long the server outlives this process when it dies without stopping it (a SIGKILL, a
   * crash): a keeper stops the server's process group unless a successor bridge takes the
   * server up within this bound (default 5 minutes; 0 stops it at once).
   */
  orphanTimeoutMs?: number;
}

/** Seams for tests; not part of the public API. */
export interface LaunchDependencies {
  findFreePort: (hostname: string) => Promise<number>;
}

/**
 * Starts `opencode serve` and resolves once it answers its health route. Throws
 * ServerStartError (with the log tail) when it cannot start or does not become ready in
 * time, AbortError when `signal` fires, UsageError for invalid options; in every case the
 * process group is gone and the temp dir removed before the promise settles.
 */
export function startOpencode(options: StartOpencodeOptions = {}): Promise<OpencodeServerHandle> {
  return launchOpencode(options, { findFreePort });
}

const WHAT = "starting opencode serve";

/** `startOpencode` with replaceable dependencies. */
export async function launchOpencode(
  options: StartOpencodeOptions,
  deps: LaunchDependencies,
): Promise<OpencodeServerHandle> {
  throwIfAborted(options.signal, WHAT);
  const logger = options.logger ?? silentLogger;
  const settings = await validate(options);
  const binary = options.binary ?? resolveOpencodeBinary();
  const password = choosePassword(options.password, logger);

  const prepared = await prepareOpencodeEnv({
    dirs: options.isolatedDirs,
    dataDir: options.dataDir,
    inheritUserConfig: options.inheritUserConfig,
    env: options.env,
    passEnv: options.passEnv,
    password,
    config: options.config,
  });
  const env = prepared.env;
  // Dirs given by the caller stay theirs: neither a failed start nor close() removes them.
  const dirs = options.isolatedDirs === undefined ? prepared.dirs : undefined;
  try {
    const sandbox = await Sandbox.prepare(options.sandbox, {
      directory: settings.directory,
      binary,
      ownState: await opencodeStateDirs(prepared.dirs, env),
    });
    const username = serverUsername(env);
    const redactor = new SecretRedactor(
      password === undefined ? [] : [{ value: password, username }],
    );
    const tail = new LogTail();
    const deadline = withDeadline(WHAT, settings.startupTimeoutMs, options.signal);
    try {
      // One retry: a port picked here can be taken by someone else before the server binds it.
      for (let attempt = 1; ; attempt++) {
        const port = settings.port || (await pickPort(deps, settings.hostname));
        const args = ["serve", "--hostname", settings.hostname, "--port", String(port)];
        // Without --print-logs the log goes only to a file; the tail needs it on stderr.
        args.push("--print-logs");
        logger.debug("spawning opencode", { binary, args, cwd: settings.directory });
        const command = sandbox?.wrap(binary, args, settings.directory) ?? {
          binary,
          args,
          inputs: [],
        };
        const proc = spawnProcess({
          ...command,
          cwd: settings.directory,
          env,
          redactor,
          tail,
          logger,
          orphanTimeoutMs: settings.orphanTimeoutMs,
          ...(password === undefined ? {} : { password }),
          tempRoot: temporaryRootOf(prepared.dirs),
        });
        const authorization =
          password === undefined ? undefined : basicAuthHeader(username, password);
        let outcome: StartupOutcome;
        try {
          outcome = await awaitReady(proc, deadline.signal, authorization, logger);
        } catch (error) {
          await proc.terminate(); // awaitReady reports outcomes; this is only a safety net
          throw error;
        }
        if (outcome.kind === "ready") {
          logger.info("opencode serve is ready", { url: outcome.url, pid: proc.pid });
          return new ManagedServer({
            process: proc,
            dirs,
            url: outcome.url,
            username,
            password,
            version: outcome.health.version,
            tail,
            logger,
          });
        }
        await proc.terminate();
        const end = proc.endedWith;
        // OpenCode reports a taken port only as "Unexpected error / ServeError"; look for ourselves.
        const portTaken =
          outcome.kind === "exited" &&
          end?.spawnError === undefined &&
          !(await isPortFree(settings.hostname, port));
        if (portTaken && settings.port === 0 && attempt === 1 && !deadline.signal.aborted) {
          logger.info("the picked port was taken before opencode bound it; retrying", { port });
          continue;
        }
        throw startupError(outcome, {
          binary,
          timeoutMs: settings.startupTimeoutMs,
          end,
          tail: tail.snapshot(),
          takenPort: portTaken ? { port, picked: settings.port === 0 } : undefined,
          callerSignal: options.signal,
        });
      }
    } finally {
      deadline.dispose();
    }
  } catch (error) {
    await dirs?.remove();
    throw error;
  }
}

interface Settings {
  directory: string;
  hostname: string;
  port: number;
  startupTimeoutMs: number;
  orphanTimeoutMs: number;
}

async function validate(options: StartOpencodeOptions): Promise<Settings> {
  if (options.dataDir !== undefined && options.inheritUserConfig === true) {
    throw new UsageError(
      "dataDir and inheritUserConfig exclude each other: with inheritUserConfig the server keeps its data where the user's OpenCode does; drop one",
    );
  }
  const directory = resolve(options.directory ?? process.cwd());
  const isDirectory = await stat(directory).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isDirectory) {
    throw new UsageError(
      `directory ${directory} does not exist or is not a directory; create it first`,
    );
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(
      `port must be an integer from 0 to 65535 (0 picks a free one), got ${port}`,
    );
  }
  const startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  if (!(startupTimeoutMs > 0)) {
    throw new UsageError(
      `startupTimeoutMs must be a positive number of ms, got ${startupTimeoutMs}`,
    );
  }
  const orphanTimeoutMs = options.orphanTimeoutMs ?? DEFAULT_ORPHAN_TIMEOUT_MS;
  if (!(orphanTimeoutMs >= 0) || !Number.isFinite(orphanTimeoutMs)) {
    throw new UsageError(
      `orphanTimeoutMs must be a number of ms, 0 or more, got ${options.orphanTimeoutMs}`,
    );
  }
  const hostname = options.hostname ?? "127.0.0.1";
  if (hostname.trim() === "") throw new UsageError("hostname must not be empty");
  return { directory, hostname, port, startupTimeoutMs, orphanTimeoutMs };
}

async function pickPort(deps: LaunchDependencies, hostname: string): Promise<number> {
  try {
    return await deps.findFreePort(hostname);
  } catch (error) {
    throw new ServerStartError(
      `could not find a free port on ${hostname}: ${describeError(error)}; check \`hostname\``,
      { cause: error },
    );
  }
}

function choosePassword(option: string | false | undefined, logger: Logger): string | undefined {
  if (option === false) {
    logger.warn(
      "opencode serve runs without a password: anything that can reach its port can drive the agent",
    );
    return undefined;
  }
  if (option === "")
    throw new UsageError("password must not be empty; pass false to run without one");
  return option ?? randomBytes(24).toString("base64url");
}

function spawnProcess(options: Parameters<typeof OpencodeProcess.spawn>[0]): OpencodeProcess {
  try {
    return OpencodeProcess.spawn(options);
  } catch (error) {
    // spawn() throws synchronously only for arguments it rejects outright (EINVAL, bad env).
    throw new ServerStartError(`could not spawn ${options.binary}: ${describeError(error)}`, {
      cause: error,
    });
  }
}

type StartupOutcome =
  | { kind: "ready"; url: string; health: HealthStatus }
  | { kind: "exited" }
  | { kind: "timeout"; url: string | undefined; lastError: unknown }
  | { kind: "aborted"; reason: unknown }
  | { kind: "rejected"; url: string; error: unknown };

/**
 * Ready means both: the listening line was printed, and the health route answered
 * healthy. Waits for whichever of that, the process's end or the deadline comes first.
 */
async function awaitReady(
  proc: OpencodeProcess,
  deadline: AbortSignal,
  authorization: string | undefined,
  logger: Logger,
): Promise<StartupOutcome> {
  const ended = proc.ended.then(() => ({ kind: "exited" as const }));
  const stopped = new AbortController();
  void proc.ended.then(() => stopped.abort());
  const signal = AbortSignal.any([deadline, stopped.signal]);
  const abandoned = (url: string | undefined, lastError: unknown): StartupOutcome =>
    deadline.reason instanceof AbortError
      ? { kind: "aborted", reason: deadline.reason }
      : { kind: "timeout", url, lastError };

  const first = await Promise.race([
    ended,
    proc.listening.then((url) => ({ kind: "listening" as const, url })),
    whenAborted(deadline).then(() => ({ kind: "deadline" as const })),
  ]);
  if (first.kind === "exited") return first;
  if (first.kind === "deadline") return abandoned(undefined, undefined);

  let lastError: unknown;
  try {
    const health = await waitForHealth(first.url, {
      authorization,
      signal,
      onAttemptFailed: (error) => {
        lastError = error;
        logger.debug("health probe failed; retrying", {
          url: first.url,
          error: describeError(error),
        });
      },
    });
    return { kind: "ready", url: first.url, health };
  } catch (error) {
    if (stopped.signal.aborted) return { kind: "exited" };
    if (deadline.aborted) return abandoned(first.url, lastError);
    return { kind: "rejected", url: first.url, error };
  }
}

function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true }),
  );
}

interface FailureContext {
  binary: string;
  timeoutMs: number;
  end: ProcessEnd | undefined;
  tail: string[];
  /** The port was in use when the process had exited; `picked` when the launcher chose it. */
  takenPort: { port: number; picked: boolean } | undefined;
  callerSignal: AbortSignal | undefined;
}

/** Says what went wrong and what to do about it. */
function startupError(
  outcome: Exclude<StartupOutcome, { kind: "ready" }>,
  context: FailureContext,
): Error {
  const end = context.end;
  const fields = {
    exitCode: end?.code ?? null,
    signal: end?.signal ?? null,
    logTail: context.tail,
  };
  switch (outcome.kind) {
    case "aborted":
      return new AbortError(WHAT, { cause: context.callerSignal?.reason ?? outcome.reason });
    case "timeout": {
      const stage =
        outcome.url === undefined
          ? "it never printed its listening line"
          : `it listens on ${outcome.url} but ${HEALTH_PATH} did not answer healthy` +
            (outcome.lastError === undefined ? "" : ` (last: ${describeError(outcome.lastError)})`);
      return new ServerStartError(
        `opencode serve did not become ready within ${context.timeoutMs} ms: ${stage}; ` +
          "raise startupTimeoutMs or check the log below",
        fields,
      );
    }
    case "rejected":
      return new ServerStartError(
        `opencode serve at ${outcome.url} refused the health probe: ${describeError(outcome.error)}; ` +
          "check OPENCODE_SERVER_USERNAME in env and the log below",
        { ...fields, cause: outcome.error },
      );
    case "exited": {
      const spawnError = end?.spawnError;
      if (spawnError !== undefined) {
        return new ServerStartError(describeSpawnError(context.binary, spawnError), {
          ...fields,
          cause: spawnError,
        });
      }
      const how =
        end?.signal != null
          ? `was killed by ${end.signal}`
          : `exited with code ${end?.code ?? "?"}`;
      const taken = context.takenPort;
      const hint =
        taken === undefined
          ? "check the log below"
          : taken.picked
            ? "the free port it was given was taken twice in a row; try again or pass a `port`"
            : `port ${taken.port} is already in use; pass a free \`port\` (or 0 to pick one)`;
      return new ServerStartError(`opencode serve ${how} before it was ready; ${hint}`, fields);
    }
  }
}

function describeSpawnError(binary: string, error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "ENOENT":
      return `could not run ${binary}: no such file (ENOENT); pass the right \`binary\` or set OPENCODE_BIN`;
    case "EACCES":
      return `could not run ${binary}: permission denied (EACCES); make it executable (chmod +x)`;
    default:
      return `could not run ${binary}: ${describeError(error)}`;
  }
}
