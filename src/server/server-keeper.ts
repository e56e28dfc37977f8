/**
 * The keeper of a managed server (see keeper-program.ts): started detached beside the server,
 * linked to this process by a pipe, it stops the server's process group when every bridge
 * that owned the server is gone (even by SIGKILL) and none takes it up within the bound. A
 * successor bridge takes the server up by linking to the keeper's socket (`linkToKeeper`);
 * the socket path is kept in the store's server record for that.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KEEPER_PROGRAM } from "./keeper-program.js";

/** How long an orphaned managed server waits for a successor bridge by default (5 min). */
export const DEFAULT_ORPHAN_TIMEOUT_MS = 5 * 60_000;

const LINK_TIMEOUT_MS = 2_000;

/** A running keeper; `stop()` ends it (when the server is stopped on purpose). */
export interface ServerKeeper {
  readonly pid: number | undefined;
  /** The Unix socket a successor links to. */
  readonly socket: string;
  stop(): void;
  /**
   * Drops this process's link (the pipe) without stopping anything: the keeper then keeps
   * the server for its bound, for a successor to take up, and stops it after.
   */
  release(): void;
}

/**
 * Starts the keeper of the process group led by `pgid`: it stops the group `orphanTimeoutMs`
 * after the last bridge linked to it is gone. Undefined where there are no process groups.
 */
export function startKeeper(pgid: number, orphanTimeoutMs: number): ServerKeeper | undefined {
  if (process.platform === "win32") return undefined;
  const socket = join(tmpdir(), `ocb-keeper-${pgid}-${randomBytes(4).toString("hex")}.sock`);
  const child = spawn(
    process.execPath,
    ["-e", KEEPER_PROGRAM, String(pgid), String(orphanTimeoutMs), socket],
    {
      detached: true, // a Ctrl-C at the terminal, or a kill of the bridge's group, spares it
      stdio: ["pipe", "ignore", "ignore"],
      cwd: tmpdir(),
      // Under Electron, execPath is the app: this makes it run as plain node.
      env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" },
      windowsHide: true,
    },
  );
  child.on("error", () => {}); // no keeper: the server is stopped by close() or the exit hook only
  child.stdin?.on("error", () => {});
  child.once("exit", () => child.stdin?.destroy());
  // The link is the pipe itself: nothing is written, it closes when this process is gone.
  // Neither it nor the child may keep this process alive.
  (child.stdin as unknown as Socket | null)?.unref();
  child.unref();
  return {
    pid: child.pid,
    socket,
    stop() {
      // SIGTERM alone: closing the pipe first would make it see an orphan and stop the server.
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    },
    release() {
      child.stdin?.destroy(); // the link closes: to the keeper, this process is gone
    },
  };
}

/** A link of this process to the keeper of a server it took up; `close()` drops it. */
export interface KeeperLink {
  close(): void;
}

/**
 * Links this process to a running keeper, so that it keeps the server while this process
 * lives; undefined when the keeper does not answer (gone, or never started).
 */
export function linkToKeeper(socket: string): Promise<KeeperLink | undefined> {
  return new Promise((resolve) => {
    const connection = connect(socket);
    const timer = setTimeout(() => {
      connection.destroy();
      resolve(undefined);
    }, LINK_TIMEOUT_MS);
    connection.once("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    connection.once("connect", () => {
      clearTimeout(timer);
      connection.on("error", () => {});
      connection.unref();
      resolve({ close: () => connection.destroy() });
    });
  });
}
