/**
 * The handle of a server this process started: it reports the process's end through
 * `exited` and stops the whole process group on `close()`.
 */
import { OpencodeBridgeError } from "../errors.js";
import type { Logger } from "../util/logger.js";
import type { IsolatedDirs } from "./isolated-dirs.js";
import type { LogTail } from "./log-tail.js";
import type { OpencodeProcess } from "./opencode-process.js";
import type { OpencodeServerHandle, ServerExit } from "./server-handle.js";

export interface ManagedServerFields {
  process: OpencodeProcess;
  dirs: IsolatedDirs | undefined;
  url: string;
  username: string;
  password: string | undefined;
  version: string | undefined;
  tail: LogTail;
  logger: Logger;
}

/** The handle of a server this process started. */
export class ManagedServer implements OpencodeServerHandle {
  readonly url: string;
  readonly username: string;
  readonly password: string | undefined;
  readonly version: string | undefined;
  readonly pid: number | undefined;
  readonly exited: Promise<ServerExit>;
  private closing: Promise<void> | undefined;
  private left = false;

  constructor(private readonly fields: ManagedServerFields) {
    this.url = fields.url;
    this.username = fields.username;
    this.password = fields.password;
    this.version = fields.version;
    this.pid = fields.process.pid;
    this.exited = fields.process.ended.then((end) => {
      const exit: ServerExit = {
        code: end.code,
        signal: end.signal,
        logTail: fields.tail.snapshot(),
        expected: this.closing !== undefined || this.left,
      };
      if (!exit.expected) {
        fields.logger.error("opencode serve exited unexpectedly; call close() to clean up", {
          pid: this.pid,
          code: exit.code,
          signal: exit.signal,
          logTail: exit.logTail.slice(-20),
        });
      }
      return exit;
    });
  }

  logTail(): string[] {
    return this.fields.tail.snapshot();
  }

  get keeperSocket(): string | undefined {
    return this.fields.process.keeper?.socket;
  }

  /** Lets the server run on for a successor (see `OpencodeServerHandle.leave`). */
  leave(): void {
    if (this.closing !== undefined || this.left) return;
    this.left = true;
    this.fields.process.leave();
  }

  close(): Promise<void> {
    if (this.left) return Promise.resolve(); // left to its keeper and a successor
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const result = await this.fields.process.terminate();
    if (!result.gone) {
      // Only a process stuck in the kernel survives SIGKILL; say so instead of hanging.
      this.fields.logger.warn("opencode serve's process group did not go away after SIGKILL", {
        pid: this.pid,
      });
    } else if (result.forced) {
      this.fields.logger.warn("opencode serve ignored SIGTERM and was killed", { pid: this.pid });
    }
    try {
      await this.fields.dirs?.remove();
    } catch (error) {
      throw new OpencodeBridgeError(
        `could not remove the server's temp dir ${this.fields.dirs?.root}; delete it by hand`,
        { cause: error },
      );
    }
  }
}
