/**
 * A managed server whose bridge is gone (killed before it could stop it), taken up by a new
 * bridge: not a child of this process, so its end is seen by watching its process group, and
 * stopping it signals that group and removes its isolated dirs, as if it had started it.
 */
import { setTimeout as delay } from "node:timers/promises";
import { basicAuthHeader, probeHealth } from "./health.js";
import type { IsolatedDirs } from "./isolated-dirs.js";
import { isProcessGroupAlive, terminateProcessGroup } from "./process-group.js";
import type { OpencodeServerHandle, ServerExit } from "./server-handle.js";

const WATCH_MS = 250;

export interface AdoptableServer {
  url: string;
  username: string;
  password: string | undefined;
  pid: number;
  dirs: IsolatedDirs | undefined;
}

export class AdoptedServer implements OpencodeServerHandle {
  readonly url: string;
  readonly username: string;
  readonly password: string | undefined;
  readonly version: string | undefined;
  readonly pid: number;
  readonly exited: Promise<ServerExit>;
  readonly #dirs: IsolatedDirs | undefined;
  readonly #gone: Promise<void>;
  #closing: Promise<void> | undefined;

  private constructor(server: AdoptableServer, version: string | undefined) {
    this.url = server.url;
    this.username = server.username;
    this.password = server.password;
    this.pid = server.pid;
    this.version = version;
    this.#dirs = server.dirs;
    this.#gone = watchUntilGone(server.pid);
    this.exited = this.#gone.then(() => ({
      code: null,
      signal: null,
      logTail: [],
      expected: this.#closing !== undefined,
    }));
  }

  /** The server if its process group still runs and it answers healthy; else undefined. */
  static async take(server: AdoptableServer): Promise<AdoptedServer | undefined> {
    if (!isProcessGroupAlive(server.pid)) return undefined;
    try {
      const health = await probeHealth(server.url, {
        timeoutMs: 2_000,
        ...(server.password === undefined
          ? {}
          : { authorization: basicAuthHeader(server.username, server.password) }),
      });
      return new AdoptedServer(server, health.version);
    } catch {
      return undefined;
    }
  }

  logTail(): string[] {
    return []; // its output went to the bridge that started it
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await terminateProcessGroup(this.pid, this.#gone);
      await this.#dirs?.remove();
    })();
    return this.#closing;
  }
}

async function watchUntilGone(pid: number): Promise<void> {
  while (isProcessGroupAlive(pid)) await delay(WATCH_MS, undefined, { ref: false });
}
