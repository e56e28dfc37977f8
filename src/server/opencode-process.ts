/**
 * One spawned `opencode serve` process: its output (split into redacted lines, kept in a
 * tail and forwarded to the logger), the URL from its listening line, and its end.
 * Readiness policy and the public handle live in `start-opencode.ts`.
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import type { Readable } from "node:stream";
import type { Logger } from "../util/logger.js";
import { LineSplitter, type LogTail, type SecretRedactor } from "./log-tail.js";
import {
  signalProcessGroup,
  type TerminateOptions,
  type TerminateResult,
  terminateProcessGroup,
} from "./process-group.js";
import { type ServerKeeper, startKeeper } from "./server-keeper.js";
import { spawnGroupLeader } from "./spawn-group.js";

/** How the process ended, or why it never ran. */
export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (ENOENT, EACCES, …). */
  spawnError?: NodeJS.ErrnoException;
}

export interface SpawnOpencodeOptions {
  binary: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to the child's file descriptors 3, 4, … (the sandbox's offline shell script). */
  inputs?: string[];
  redactor: SecretRedactor;
  tail: LogTail;
  logger: Logger;
  /** Start a keeper that stops the group this long after the last bridge linked to it is gone. */
  orphanTimeoutMs?: number;
  /** The server's password, for the keeper to hold (a successor learns it there, not in a file). */
  password?: string;
  /** The server's isolated temp root, for the keeper to remove if it outlives every bridge. */
  tempRoot?: string | undefined;
}

// `opencode server listening on http://127.0.0.1:4096`
const LISTENING_LINE = /listening on (https?:\/\/\S+)/;

// After 'exit', output still in the pipes is read until they close; a grandchild that
// inherited them can keep them open forever, hence the bound.
const DRAIN_AFTER_EXIT_MS = 500;

/** A running (or ended) `opencode serve` child. */
export class OpencodeProcess {
  readonly pid: number | undefined;
  /** Resolves with the base URL from the listening line; stays pending if it never comes. */
  readonly listening: Promise<string>;
  /** Resolves (never rejects) once the process has exited or failed to start. */
  readonly ended: Promise<ProcessEnd>;
  /** Stops the group when this process dies without stopping it (see server-keeper.ts). */
  readonly keeper: ServerKeeper | undefined;
  private endInfo: ProcessEnd | undefined;
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, options: SpawnOpencodeOptions) {
    this.#child = child;
    this.pid = child.pid;
    let onListening: (url: string) => void = () => {};
    this.listening = new Promise((resolve) => {
      onListening = resolve;
    });
    const onLine = (stream: "stdout" | "stderr") => (line: string) => {
      options.tail.push(line);
      options.logger.debug(line, { source: "opencode", pid: this.pid, stream });
      const match = LISTENING_LINE.exec(line);
      if (match?.[1] !== undefined) onListening(match[1].replace(/\/+$/, ""));
    };
    const drained = Promise.all([
      readLines(child.stdout, options.redactor, onLine("stdout")),
      readLines(child.stderr, options.redactor, onLine("stderr")),
    ]);
    this.ended = new Promise<ProcessEnd>((resolve) => {
      child.once("exit", (code, signal) => {
        untrackLiveGroup(this.pid);
        const bound = new Promise((done) => setTimeout(done, DRAIN_AFTER_EXIT_MS).unref());
        void Promise.race([drained, bound]).then(() => resolve({ code, signal }));
      });
      child.on("error", (error: NodeJS.ErrnoException) => {
        // With a pid the process runs and 'exit' follows; without one it never started.
        if (this.pid === undefined) resolve({ code: null, signal: null, spawnError: error });
      });
    }).then((end) => {
      this.endInfo = end;
      return end;
    });
    this.keeper =
      this.pid === undefined || options.orphanTimeoutMs === undefined
        ? undefined
        : startKeeper(this.pid, options.orphanTimeoutMs, options.password, options.tempRoot);
    if (this.pid !== undefined) {
      const keeperDir = this.keeper === undefined ? undefined : dirname(this.keeper.socket);
      trackLiveGroup(
        this.pid,
        [options.tempRoot, keeperDir].filter((dir) => dir !== undefined),
      );
    }
  }

  /** Spawns the binary as the leader of a new process group, with piped output. */
  static spawn(options: SpawnOpencodeOptions): OpencodeProcess {
    const { binary, args, inputs = [], cwd, env } = options;
    return new OpencodeProcess(spawnGroupLeader({ binary, args, inputs }, { cwd, env }), options);
  }

  /** How it ended, once it has. */
  get endedWith(): ProcessEnd | undefined {
    return this.endInfo;
  }

  /** Stops the whole process group (SIGTERM, then SIGKILL) and waits until it is gone. */
  async terminate(options: TerminateOptions = {}): Promise<TerminateResult> {
    if (this.pid === undefined) return { forced: false, gone: true };
    try {
      return await terminateProcessGroup(this.pid, this.ended, options);
    } finally {
      this.keeper?.stop(); // stopped on purpose: nothing left to keep
    }
  }

  /**
   * Lets the server run on without this process: not stopped when it exits, its keeper's link
   * dropped (the keeper keeps it for its bound, for a successor), and nothing of it holds this
   * process alive any more (its output is still read while this process runs).
   */
  leave(): void {
    untrackLiveGroup(this.pid);
    this.keeper?.release();
    for (const stream of [this.#child.stdout, this.#child.stderr]) {
      (stream as unknown as { unref?: () => void } | null)?.unref?.();
    }
    this.#child.unref();
  }
}

function readLines(
  stream: Readable | null,
  redactor: SecretRedactor,
  onLine: (line: string) => void,
): Promise<void> {
  if (stream === null) return Promise.resolve();
  const splitter = new LineSplitter(redactor, onLine);
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => splitter.push(chunk));
  return new Promise((resolve) => {
    const finish = () => {
      splitter.end();
      resolve();
    };
    stream.once("end", finish);
    stream.once("error", finish);
  });
}

// A safety net for a parent that exits without calling close(): the servers run in their
// own process groups and would outlive it. Only 'exit' can be hooked synchronously, so
// this cannot wait for them; their keepers remove their temp dirs once they are gone, and
// close() remains the way to stop a server. Each group with the temp dirs that are its own.
const liveGroups = new Map<number, readonly string[]>();
let exitHookInstalled = false;

/** Sends `signal` to every server group this process started and has not seen end, at once. */
export function signalLiveGroups(signal: NodeJS.Signals): void {
  for (const group of liveGroups.keys()) {
    try {
      signalProcessGroup(group, signal);
    } catch {
      // Not ours to signal any more; nothing else to do while exiting.
    }
  }
}

/**
 * A second Ctrl-C: the process is about to exit and cannot wait for a clean stop. Every live
 * server group is killed, then its temp dirs removed here: its keeper, which would remove them,
 * may be gone too (a Ctrl-C that lands while the keeper is being spawned, before it leaves the
 * terminal's process group, kills it).
 */
export function killLiveGroupsNow(): void {
  signalLiveGroups("SIGKILL");
  for (const dirs of liveGroups.values()) {
    for (const dir of dirs) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        // Left for the keeper, if it is there; nothing else to do while exiting.
      }
    }
  }
}

/**
 * Registers a process group to be signalled if this process exits without stopping it, and
 * `tempDirs` to remove if it must exit at once (`killLiveGroupsNow`).
 */
export function trackLiveGroup(pid: number, tempDirs: readonly string[] = []): void {
  liveGroups.set(pid, tempDirs);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => signalLiveGroups("SIGTERM"));
}

export function untrackLiveGroup(pid: number | undefined): void {
  if (pid !== undefined) liveGroups.delete(pid);
}
