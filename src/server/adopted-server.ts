/**
 * A managed server whose bridge is gone (killed before it could stop it), taken up by a new
 * bridge: not a child of this process, so its end is seen by watching its process group, and
 * stopping it signals that group and removes its isolated dirs, as if it had started it.
 */
import { setTimeout as delay } from "node:timers/promises";
import { basicAuthHeader, probeHealth } from "./health.js";
import { type IsolatedDirs, temporaryRootOf } from "./isolated-dirs.js";
import { isProcessGroupAlive, terminateProcessGroup } from "./process-group.js";
import type { OpencodeServerHandle, ServerExit } from "./server-handle.js";
import {
  DEFAULT_ORPHAN_TIMEOUT_MS,
  type KeeperLink,
  linkToKeeper,
  type ServerKeeper,
  startKeeper,
} from "./server-keeper.js";

const WATCH_MS = 250;

export interface AdoptableServer {
  url: string;
  username: string;
  password: string | undefined;
  pid: number;
  dirs: IsolatedDirs | undefined;
  /** Its keeper's socket: linking to it keeps the server from stopping as an orphan. */
  keeperSocket?: string | undefined;
  /** For a server whose keeper is gone: the bound of the new keeper started for it. */
  orphanTimeoutMs?: number | undefined;
}

/** How this process holds a taken-up server: linked to its keeper, or with a keeper of its own. */
type Keeping =
  | { kind: "linked"; link: KeeperLink; socket: string }
  | { kind: "own"; keeper: ServerKeeper };

export class AdoptedServer implements OpencodeServerHandle {
  readonly url: string;
  readonly username: string;
  readonly password: string | undefined;
  readonly version: string | undefined;
  readonly pid: number;
  readonly exited: Promise<ServerExit>;
  readonly #dirs: IsolatedDirs | undefined;
  readonly #gone: Promise<void>;
  readonly #keeping: Keeping | undefined;
  #closing: Promise<void> | undefined;

  private constructor(
    server: AdoptableServer,
    version: string | undefined,
    keeping: Keeping | undefined,
  ) {
    this.#keeping = keeping;
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

  /**
   * The server if its process group still runs and it answers healthy; else undefined. Its
   * password is the keeper's (a record of old may still carry it).
   */
  static async take(server: AdoptableServer): Promise<AdoptedServer | undefined> {
    if (!isProcessGroupAlive(server.pid)) return undefined;
    const socket = server.keeperSocket;
    const link = socket === undefined ? undefined : await linkToKeeper(socket);
    const known = { ...server, password: link?.password ?? server.password };
    try {
      const health = await probeHealth(known.url, {
        timeoutMs: 2_000,
        ...(known.password === undefined
          ? {}
          : { authorization: basicAuthHeader(known.username, known.password) }),
      });
      return new AdoptedServer(known, health.version, keep(known, link));
    } catch {
      link?.close();
      return undefined;
    }
  }

  get keeperSocket(): string | undefined {
    const keeping = this.#keeping;
    return keeping?.kind === "own" ? keeping.keeper.socket : keeping?.socket;
  }

  logTail(): string[] {
    return []; // its output went to the bridge that started it
  }

  /** Lets the server run on for a successor (see `OpencodeServerHandle.leave`). */
  leave(): void {
    if (this.#closing !== undefined) return;
    this.#closing = Promise.resolve(); // its end from now on is no crash of ours
    if (this.#keeping?.kind === "linked") this.#keeping.link.close();
    else this.#keeping?.keeper.release();
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      // Not a child of this process: no handle of it holds the event loop while it stops, and
      // `await close()` must not be cut off by an otherwise idle process exiting (code 13).
      const hold = setInterval(() => {}, 1_000);
      try {
        await terminateProcessGroup(this.pid, this.#gone);
      } finally {
        clearInterval(hold);
      }
      if (this.#keeping?.kind === "linked") this.#keeping.link.close();
      else this.#keeping?.keeper.stop();
      await this.#dirs?.remove();
    })();
    return this.#closing;
  }
}

/** Keeps the link to the server's keeper; where it has none (any more), starts one. */
function keep(server: AdoptableServer, link: KeeperLink | undefined): Keeping | undefined {
  const socket = server.keeperSocket;
  if (link !== undefined && socket !== undefined) return { kind: "linked", link, socket };
  const keeper = startKeeper(
    server.pid,
    server.orphanTimeoutMs ?? DEFAULT_ORPHAN_TIMEOUT_MS,
    server.password,
    temporaryRootOf(server.dirs),
  );
  return keeper === undefined ? undefined : { kind: "own", keeper };
}

async function watchUntilGone(pid: number): Promise<void> {
  while (isProcessGroupAlive(pid)) await delay(WATCH_MS, undefined, { ref: false });
}
