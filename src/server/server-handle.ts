/**
 * The one shape every OpenCode server has for the rest of the library, whether this
 * process started it (`startOpencode`) or only connected to it (`attachOpencode`).
 */

/** How a server's process ended. */
export interface ServerExit {
  /** The exit code, or `null` when a signal ended the process (or nothing is known). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the process printed (stdout and stderr interleaved), secrets removed. */
  logTail: string[];
  /** True when `close()` caused the exit; false for a crash or a kill from outside. */
  expected: boolean;
}

/** A running OpenCode server and the means to stop it. */
export interface OpencodeServerHandle {
  /** Base URL without a trailing slash, for example `http://127.0.0.1:41234`. */
  readonly url: string;
  /** HTTP Basic auth user (OpenCode's default is `opencode`). */
  readonly username: string;
  /** HTTP Basic auth password, or `undefined` when the server runs without one. */
  readonly password: string | undefined;
  /** Version reported by the health probe, when the server said. */
  readonly version: string | undefined;
  /** Process id of a managed server; `undefined` for an attached one. */
  readonly pid: number | undefined;
  /** Stops a managed server (its whole process group) and removes its temp dirs. Idempotent. */
  close(): Promise<void>;
  /** Resolves (never rejects) once the server's process is gone; see each factory for details. */
  readonly exited: Promise<ServerExit>;
  /** The last lines the server printed, secrets removed (empty for an attached server). */
  logTail(): string[];
  /** The socket of a managed server's keeper, for a successor bridge to link to (server-keeper.ts). */
  readonly keeperSocket?: string | undefined;
  /**
   * Lets a managed server run on without this process, for a successor bridge on the same
   * store to take up (`Bridge.close({ leaveRunning: true })`): its keeper keeps it for its
   * bound (`orphanTimeoutMs`), then stops it. Its dirs stay. Absent on an attached server
   * (never this process's to stop).
   */
  leave?(): void;
}
