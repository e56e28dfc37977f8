/**
 * A managed server that comes back: when `opencode serve` dies without being asked to, the
 * listeners hear at once (running turns can fail with the reason and the log tail), and it is
 * started again in the same isolated dirs (so the sessions are still there), on the same port
 * with the same password (so clients and their streams, which reconnect by themselves, carry
 * on), with bounded, backed-off retries.
 */
import { randomBytes } from "node:crypto";
import { AbortError } from "../errors.js";
import { sleep, throwIfAborted } from "../util/abort.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { isProcessRunning } from "../util/process-liveness.js";
import { userDataHome } from "../util/user-data-dir.js";
import { AdoptedServer } from "./adopted-server.js";
import {
  createIsolatedDirs,
  type IsolatedDirs,
  isolatedDirsAt,
  keptIsolatedDirs,
} from "./isolated-dirs.js";
import type { OpencodeServerHandle, ServerExit } from "./server-handle.js";
import { type StartOpencodeOptions, startOpencode } from "./start-opencode.js";

export interface RestartPolicy {
  /** Attempts after one crash before giving up (default 5). */
  attempts: number;
  /** First wait before a restart; doubled each attempt (default 500 ms). */
  initialDelayMs: number;
}

const DEFAULT_RESTART: RestartPolicy = { attempts: 5, initialDelayMs: 500 };

/** How a server is started (and started again); tests pass a fake to drive restarts. */
export type StartServer = (options: StartOpencodeOptions) => Promise<OpencodeServerHandle>;

export class SupervisedServer implements OpencodeServerHandle {
  #current: OpencodeServerHandle;
  readonly #options: StartOpencodeOptions;
  readonly #dirs: IsolatedDirs | undefined;
  readonly #policy: RestartPolicy;
  readonly #logger: Logger;
  readonly #startServer: StartServer;
  /** Fires on close: a restart in progress stops waiting and kills what it half started. */
  readonly #closer = new AbortController();
  readonly #listeners = new Set<(exit: ServerExit) => void>();
  readonly #restartListeners = new Set<() => void>();
  #closing = false;
  #left = false;
  #restarting: Promise<void> | undefined;
  #gaveUp = false;
  /** Resolves when the supervision ends (closed, or restarts gave up). */
  readonly exited: Promise<ServerExit>;
  #ended: (exit: ServerExit) => void = () => {};

  private constructor(
    current: OpencodeServerHandle,
    options: StartOpencodeOptions,
    dirs: IsolatedDirs | undefined,
    policy: RestartPolicy,
    startServer: StartServer,
  ) {
    this.#current = current;
    this.#startServer = startServer;
    this.#options = options;
    this.#dirs = dirs;
    this.#policy = policy;
    this.#logger = options.logger ?? silentLogger;
    this.exited = new Promise((resolve) => {
      this.#ended = resolve;
    });
    this.#watch(current);
  }

  static async start(
    options: StartOpencodeOptions,
    policy: Partial<RestartPolicy> = {},
    startServer: StartServer = startOpencode,
  ): Promise<SupervisedServer> {
    const dirs = options.inheritUserConfig
      ? undefined
      : options.dataDir === undefined
        ? await createIsolatedDirs()
        : await keptIsolatedDirs(options.dataDir);
    // Fixed across restarts: clients keep using what they were given.
    const password =
      options.password === undefined ? randomBytes(24).toString("base64url") : options.password;
    const fixed = { ...options, password, ...(dirs === undefined ? {} : { isolatedDirs: dirs }) };
    try {
      const first = await startServer(fixed);
      const port = Number(new URL(first.url).port);
      // The signal was for this start; restarts after a crash are not aborted by it.
      const { signal: _signal, ...restarts } = fixed;
      return new SupervisedServer(
        first,
        { ...restarts, port },
        dirs,
        { ...DEFAULT_RESTART, ...policy },
        startServer,
      );
    } catch (error) {
      await dirs?.remove();
      throw error;
    }
  }

  get url(): string {
    return this.#current.url;
  }
  get username(): string {
    return this.#current.username;
  }
  get password(): string | undefined {
    return this.#current.password;
  }
  get version(): string | undefined {
    return this.#current.version;
  }
  get pid(): number | undefined {
    return this.#current.pid;
  }
  get keeperSocket(): string | undefined {
    return this.#current.keeperSocket;
  }

  logTail(): string[] {
    return this.#current.logTail();
  }

  /**
   * Takes up a server a previous bridge ran (it was killed before it could stop it), in its
   * own dirs, port and password; undefined when it is gone or does not answer.
   */
  static async adopt(
    server: {
      url: string;
      username: string;
      password?: string;
      pid: number;
      root?: string;
      keeperSocket?: string;
    },
    options: StartOpencodeOptions,
    policy: Partial<RestartPolicy> = {},
  ): Promise<SupervisedServer | undefined> {
    const dirs = server.root === undefined ? undefined : isolatedDirsAt(server.root);
    // The supervisor owns the dirs: a restart runs in them after the adopted process is gone.
    const taken = await AdoptedServer.take({
      url: server.url,
      username: server.username,
      password: server.password,
      pid: server.pid,
      dirs: undefined,
      keeperSocket: server.keeperSocket,
      orphanTimeoutMs: options.orphanTimeoutMs,
    });
    if (taken === undefined) return undefined;
    const { signal: _signal, ...restarts } = options;
    const fixed = {
      ...restarts,
      password: taken.password ?? (false as const),
      port: Number(new URL(server.url).port),
      ...(dirs === undefined ? {} : { isolatedDirs: dirs }),
    };
    return new SupervisedServer(
      taken,
      fixed,
      dirs,
      { ...DEFAULT_RESTART, ...policy },
      startOpencode,
    );
  }

  /** Whether the current process has died (a restart follows unless the supervision ended). */
  get died(): boolean {
    const pid = this.#current.pid;
    return pid !== undefined && !isProcessRunning(pid);
  }

  /** Whether the supervision ended: closed, left, or the restarts gave up. */
  get ended(): boolean {
    return this.#closing || this.#gaveUp;
  }

  /**
   * OpenCode's data home (`XDG_DATA_HOME`): its isolated one, or the user's own for a server
   * that inherits the user's config. The bridge reads the step snapshots OpenCode keeps there.
   */
  get dataHome(): string {
    return this.#dirs?.env.XDG_DATA_HOME ?? userDataHome({ ...process.env, ...this.#options.env });
  }

  /** Its isolated dirs' root, when it runs isolated (a successor needs it to take it up). */
  get root(): string | undefined {
    return this.#dirs?.root;
  }

  /** Calls `listener` each time the server has been started again after a crash. */
  onRestart(listener: () => void): () => void {
    this.#restartListeners.add(listener);
    return () => this.#restartListeners.delete(listener);
  }

  /** Calls `listener` each time the server dies unasked (before it is restarted). */
  onCrash(listener: (exit: ServerExit) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves once a restart in progress has finished (or given up); rejects with AbortError
   * as soon as `signal` fires (a restart can take minutes: attempts times the startup bound).
   * A server whose process has died counts as restarting even before its exit is heard (a
   * send right after a SIGKILL must wait for the restart, not find the port refused).
   */
  async restarted(signal?: AbortSignal): Promise<void> {
    const what = "waiting for the server's restart";
    throwIfAborted(signal, what);
    const current = this.#current;
    const restarting =
      current.pid !== undefined && !this.#closing && !isProcessRunning(current.pid)
        ? // Its exit comes next; the watch's handler (registered first) starts the restart.
          current.exited.then(() => this.#restarting)
        : this.#restarting;
    if (restarting === undefined || signal === undefined) return restarting;
    let onAbort = (): void => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new AbortError(what, { cause: signal.reason }));
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([restarting, aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Lets the server run on without this process (see `OpencodeServerHandle.leave`): no
   * restart any more, its dirs kept for the successor that takes it up.
   */
  leave(): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#left = true;
    this.#closer.abort();
    this.#current.leave?.();
    this.#ended({ code: null, signal: null, logTail: this.#current.logTail(), expected: true });
  }

  async close(): Promise<void> {
    if (this.#closing && this.#left) return;
    this.#closing = true;
    // A restart in progress is not waited out: its delay and start end now, and
    // startOpencode kills the process it had half started.
    this.#closer.abort();
    await this.#restarting?.catch(() => {});
    await this.#current.close();
    await this.#dirs?.remove();
    this.#ended({ code: null, signal: null, logTail: this.#current.logTail(), expected: true });
  }

  #watch(server: OpencodeServerHandle): void {
    void server.exited.then((exit) => {
      if (this.#closing || exit.expected || server !== this.#current) return;
      for (const listener of this.#listeners) {
        try {
          listener(exit);
        } catch (error) {
          this.#logger.error("a crash listener failed", { error });
        }
      }
      this.#restarting = this.#restart(exit);
    });
  }

  #notifyRestarted(): void {
    for (const listener of this.#restartListeners) {
      try {
        listener();
      } catch (error) {
        this.#logger.error("a restart listener failed", { error });
      }
    }
  }

  async #restart(crash: ServerExit): Promise<void> {
    let wait = this.#policy.initialDelayMs;
    for (let attempt = 1; attempt <= this.#policy.attempts && !this.#closing; attempt++) {
      try {
        await sleep(wait, this.#closer.signal, "restarting opencode serve");
        const next = await this.#startServer({ ...this.#options, signal: this.#closer.signal });
        if (this.#closing) {
          // Ready just as close began: close stops the current server, not this one.
          await next.close().catch(() => {});
          return;
        }
        await this.#current.close().catch(() => {});
        this.#current = next;
        this.#watch(next);
        this.#logger.info("opencode serve restarted after a crash", { attempt, url: next.url });
        this.#notifyRestarted();
        return;
      } catch (error) {
        if (this.#closing) return;
        this.#logger.warn("restarting opencode serve failed", { attempt, error });
        wait *= 2;
      }
    }
    if (!this.#closing) {
      this.#gaveUp = true;
      this.#logger.error("opencode serve could not be restarted; giving up", {
        attempts: this.#policy.attempts,
      });
      this.#ended(crash);
    }
  }
}
