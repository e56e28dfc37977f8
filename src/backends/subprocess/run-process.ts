/**
 * One `opencode run --format json` process: its stdout read as whole JSON lines (however
 * long), its stderr kept as a tail for errors, and a stop that takes its whole process
 * group (the shells of running tools too).
 */
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { LineSplitter, LogTail, SecretRedactor } from "../../server/log-tail.js";
import { trackLiveGroup, untrackLiveGroup } from "../../server/opencode-process.js";
import { isProcessGroupAlive, terminateProcessGroup } from "../../server/process-group.js";
import type { WrappedCommand } from "../../server/sandbox/sandbox.js";
import { startKeeper } from "../../server/server-keeper.js";
import { spawnGroupLeader } from "../../server/spawn-group.js";
import type { Logger } from "../../util/logger.js";

export interface RunProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when it could not be started at all (ENOENT, EACCES, …). */
  spawnError?: NodeJS.ErrnoException;
  stderrTail: string[];
}

export interface RunProcessOptions {
  /** `opencode run …`, wrapped in the sandbox if there is one. */
  command: WrappedCommand;
  cwd: string;
  env: Readonly<Record<string, string>>;
  logger: Logger;
  /** Each stdout line, in order. */
  onLine: (line: string) => void;
}

export class RunProcess {
  readonly pid: number | undefined;
  /** Resolves (never rejects) once it has exited and its stdout has been read to the end. */
  readonly ended: Promise<RunProcessEnd>;
  readonly #exited: Promise<unknown>;

  constructor(options: RunProcessOptions) {
    const child: ChildProcess = spawnGroupLeader(options.command, options);
    this.pid = child.pid;
    let reading = true;
    if (this.pid !== undefined) trackLiveGroup(this.pid);
    // Nobody can take up a run whose bridge was killed outright: its keeper stops it at once.
    const keeper = this.pid === undefined ? undefined : startKeeper(this.pid, 0);
    const tail = new LogTail(50);
    const stderr = new LineSplitter(new SecretRedactor([]), (line) => {
      tail.push(line);
      options.logger.debug(line, { source: "opencode run", pid: this.pid });
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk));
    const stdoutDone = new Promise<void>((resolve) => {
      if (child.stdout === null) return resolve();
      const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
      // Lines after the end (a leftover background process) belong to no turn.
      lines.on("line", (line) => {
        if (reading) options.onLine(line);
      });
      lines.once("close", () => resolve());
    });
    this.#exited = new Promise<{
      code: number | null;
      signal: NodeJS.Signals | null;
      spawnError?: NodeJS.ErrnoException;
    }>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", (error: NodeJS.ErrnoException) => {
        if (this.pid === undefined) resolve({ code: null, signal: null, spawnError: error });
      });
    });
    this.ended = this.#exited.then(async (exit) => {
      // A tool's shell that inherited stdout could keep it open: read on only briefly.
      await Promise.race([stdoutDone, new Promise((done) => setTimeout(done, 500).unref())]);
      reading = false;
      stderr.end();
      // What a tool left running in the background goes with the run (nothing outlives it).
      if (this.pid !== undefined && isProcessGroupAlive(this.pid)) {
        await terminateProcessGroup(this.pid, Promise.resolve(), { graceMs: 1_000 }).catch(
          (error: unknown) =>
            options.logger.warn("could not stop what the run left behind", { error }),
        );
      }
      untrackLiveGroup(this.pid);
      keeper?.stop();
      return { ...(exit as RunProcessEnd), stderrTail: tail.snapshot() };
    });
  }

  /** Stops the whole process group and waits until it is gone. */
  async stop(): Promise<void> {
    if (this.pid === undefined) return;
    await terminateProcessGroup(this.pid, this.#exited, { graceMs: 2_000 });
  }
}
