/**
 * The keeper of a managed server (see keeper-program.ts): started detached beside the server,
 * linked to this process by a pipe, it stops the server's process group when every bridge
 * that owned the server is gone (even by SIGKILL) and none takes it up within the bound. A
 * successor bridge takes the server up by linking to the keeper's socket (`linkToKeeper`);
 * the socket path is kept in the store's server record for that. The keeper, not the store,
 * holds the server's password: the successor is told it over the socket, so that a store left
 * by a killed bridge (or a copy of it) carries no secret.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KEEPER_PROGRAM } from "./keeper-program.js";

/** How long an orphaned managed server waits for a successor bridge by default (5 min). */
/** Prefix of every keeper's socket directory (in the temp dir), so its record can be checked. */
export const KEEPER_DIR_PREFIX = "ocb-keeper-";

/** The keeper's socket, in its directory. */
export const KEEPER_SOCKET_NAME = "keeper.sock";

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
 * after the last bridge linked to it is gone, and tells `password` to whoever links to it.
 * `tempRoot`, the server's isolated temp root (not a kept one), it removes when it exits with
 * no bridge linked. Undefined where there are no process groups.
 */
export function startKeeper(
  pgid: number,
  orphanTimeoutMs: number,
  password?: string,
  tempRoot?: string,
): ServerKeeper | undefined {
  if (process.platform === "win32") return undefined;
  // A directory only the owner can enter: the socket answers with the password.
  const dir = mkdtempSync(join(tmpdir(), `${KEEPER_DIR_PREFIX}${pgid}-`));
  const socket = join(dir, KEEPER_SOCKET_NAME);
  const child = spawn(
    process.execPath,
    ["-e", KEEPER_PROGRAM, String(pgid), String(orphanTimeoutMs), socket, tempRoot ?? ""],
    {
      detached: true, // a Ctrl-C at the terminal, or a kill of the bridge's group, spares it
      stdio: ["pipe", "ignore", "ignore"],
      cwd: tmpdir(),
      env: keeperEnv(process.env),
      windowsHide: true,
    },
  );
  child.on("error", () => {
    // No keeper: the server is stopped by close() or the exit hook only.
    rmSync(dir, { recursive: true, force: true });
  });
  child.stdin?.on("error", () => {});
  child.stdin?.write(`${JSON.stringify(password === undefined ? {} : { password })}\n`);
  child.once("exit", () => child.stdin?.destroy());
  // The link is the pipe itself (past the password line): it closes when this process is gone.
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
  /** The server's password, as the bridge that started it told the keeper. */
  readonly password: string | undefined;
  close(): void;
}

/**
 * Links this process to a running keeper, so that it keeps the server while this process
 * lives, and learns the server's password from it; undefined when the keeper does not answer
 * (gone, or never started) within the bound.
 */
export function linkToKeeper(socket: string): Promise<KeeperLink | undefined> {
  return new Promise((resolve) => {
    const connection = connect(socket);
    let received = "";
    const fail = () => {
      clearTimeout(timer);
      connection.destroy();
      resolve(undefined);
    };
    const timer = setTimeout(fail, LINK_TIMEOUT_MS);
    connection.once("error", fail);
    connection.once("end", fail);
    const onData = (chunk: Buffer) => {
      received += chunk.toString("utf8");
      const end = received.indexOf("\n");
      if (end === -1) return;
      clearTimeout(timer);
      connection.off("data", onData);
      connection.off("error", fail);
      connection.off("end", fail);
      connection.on("error", () => {});
      connection.resume(); // nothing more comes; the link is the open connection
      connection.unref();
      resolve({ password: passwordIn(received.slice(0, end)), close: () => connection.destroy() });
    };
    connection.on("data", onData);
  });
}

/** The password in the keeper's line; undefined when it has none (or a keeper of old). */
function passwordIn(line: string): string | undefined {
  try {
    const told: unknown = JSON.parse(line);
    if (typeof told === "object" && told !== null && "password" in told) {
      return typeof told.password === "string" ? told.password : undefined;
    }
  } catch {
    // not a line of ours: no password known
  }
  return undefined;
}

/**
 * The keeper's environment: the bridge's, without its own variables (`OCB_*`: the token, the
 * cluster secret, the store's keys), which a process that outlives the bridge has no use for.
 * Under Electron, execPath is the app: `ELECTRON_RUN_AS_NODE` makes it run as plain node.
 */
export function keeperEnv(parent: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ELECTRON_RUN_AS_NODE: "1" };
  for (const [name, value] of Object.entries(parent)) {
    if (!name.startsWith("OCB_") && name !== "ELECTRON_RUN_AS_NODE") env[name] = value;
  }
  return env;
}
