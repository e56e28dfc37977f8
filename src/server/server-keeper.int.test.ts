/**
 * The keeper program with real processes: a `sleep` in a process group of its own stands in
 * for the server, the keeper's stdin pipe for the link of the bridge that started it (closing
 * it is that bridge dying), and `linkToKeeper` for a successor. Bounds are safety nets.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { isRunning, trackProcess } from "../../test/support/process-tracker.js";
import { KEEPER_PROGRAM } from "./keeper-program.js";
import { isProcessGroupAlive } from "./process-group.js";
import { linkToKeeper, type ServerKeeper, startKeeper } from "./server-keeper.js";

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone, as it should be
    }
  }
});

/** A stand-in server: the leader of a new process group (optionally deaf to SIGTERM). */
function fakeServer(ignoreTerm = false): number {
  const script = ignoreTerm ? "trap '' TERM; sleep 600 & wait" : "sleep 600 & wait";
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  if (child.pid === undefined) throw new Error("could not start sh");
  trackProcess(child.pid, "fake server (keeper test)");
  started.push(child.pid);
  child.unref();
  return child.pid;
}

/** Runs the keeper as startKeeper does, with its stdin pipe in the test's hand. */
function keeper(pgid: number, boundMs: number): { child: ChildProcess; socket: string } {
  const socket = join(mkdtempSync(join(tmpdir(), "ocb-keeper-test-")), "keeper.sock");
  const child = spawn(
    process.execPath,
    ["-e", KEEPER_PROGRAM, String(pgid), `${boundMs}`, socket],
    {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    },
  );
  if (child.pid === undefined) throw new Error("could not start the keeper");
  trackProcess(child.pid, "keeper (keeper test)");
  started.push(child.pid);
  return { child, socket };
}

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  boundMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs} ms`);
    await delay(50);
  }
}

/**
 * The keeper accepts links. Its socket file alone does not say so: a loaded machine can pause
 * the keeper between binding the file and listening (a link then is refused: failed once on a
 * loaded run), and a file can be a leftover of an earlier keeper of the same pid.
 */
const accepting = (socket: string) =>
  new Promise<boolean>((resolve) => {
    const probe = connect(socket);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

describe("the server keeper", () => {
  it("stops the server's group at once (bound 0) when its bridge is gone, then exits", async () => {
    const server = fakeServer();
    const { child, socket } = keeper(server, 0);
    await until("the keeper listens", () => accepting(socket));
    expect(isProcessGroupAlive(server)).toBe(true);
    child.stdin?.end(); // the bridge is gone
    await until("the server is stopped", () => !isProcessGroupAlive(server));
    await exited(child);
    expect(existsSync(socket)).toBe(false);
  });

  it("keeps an orphan while a successor is linked, and stops it after the bound once none is", async () => {
    const server = fakeServer();
    const { child, socket } = keeper(server, 1_000);
    await until("the keeper listens", () => accepting(socket));
    child.stdin?.end(); // the bridge is gone …
    const successor = await linkToKeeper(socket); // … and a successor takes the server up
    expect(successor).toBeDefined();
    await delay(2_500); // past the bound: linked, the server is kept
    expect(isProcessGroupAlive(server)).toBe(true);
    expect(isRunning(child.pid ?? 0)).toBe(true);
    successor?.close(); // the successor is gone too, and nobody takes the server up
    await until("the server is stopped", () => !isProcessGroupAlive(server));
    await exited(child);
  });

  it("tells every successor the password the bridge wrote, once it has written it", async () => {
    const server = fakeServer();
    const { child, socket } = keeper(server, 60_000);
    await until("the keeper listens", () => accepting(socket));
    const early = linkToKeeper(socket); // linked before the bridge has told the keeper anything
    child.stdin?.write(`${JSON.stringify({ password: 'pa ss"word' })}\n`);
    expect((await early)?.password).toBe('pa ss"word');
    const later = await linkToKeeper(socket);
    expect(later?.password).toBe('pa ss"word');
    (await early)?.close();
    later?.close();
  });

  it("tells no password, without keeping a successor waiting, when its bridge died before writing one", async () => {
    const server = fakeServer();
    const { child, socket } = keeper(server, 60_000);
    await until("the keeper listens", () => accepting(socket));
    child.stdin?.end(); // gone without a word
    const successor = await linkToKeeper(socket);
    expect(successor).toBeDefined();
    expect(successor?.password).toBeUndefined();
    successor?.close();
  });

  it("startKeeper: holds the password in a socket only the owner can reach, removed at its end", async () => {
    const server = fakeServer();
    const kept = startKeeper(server, 60_000, "the-password");
    trackProcess(kept?.pid, "keeper (startKeeper password test)");
    const socket = kept?.socket ?? "";
    await until("the keeper listens", () => accepting(socket));
    expect(statSync(dirname(socket)).mode & 0o777).toBe(0o700);
    const successor = await linkToKeeper(socket);
    expect(successor?.password).toBe("the-password");
    successor?.close();
    kept?.stop();
    await until("the keeper exits", () => !isRunning(kept?.pid ?? 0));
    expect(existsSync(dirname(socket))).toBe(false);
  });

  it("SIGKILLs a server that ignores SIGTERM", async () => {
    const server = fakeServer(true);
    const { child, socket } = keeper(server, 0);
    await until("the keeper listens", () => accepting(socket));
    child.stdin?.end();
    await until("the server is killed", () => !isProcessGroupAlive(server));
    await exited(child);
  });

  it("does not outlive its server: it exits once the group is gone", async () => {
    const server = fakeServer();
    const { child, socket } = keeper(server, 60_000);
    await until("the keeper listens", () => accepting(socket));
    process.kill(-server, "SIGKILL");
    await until("the keeper exits", () => child.exitCode !== null);
    expect(existsSync(socket)).toBe(false);
  });

  it("startKeeper: stop() ends the keeper and leaves the server to its owner", async () => {
    const server = fakeServer();
    const kept = startKeeper(server, 0);
    expect(kept).toBeDefined();
    trackProcess(kept?.pid, "keeper (startKeeper test)");
    await until("the keeper listens", () => accepting(kept?.socket ?? ""));
    kept?.stop();
    await until("the keeper exits", () => !isRunning(kept?.pid ?? 0));
    expect(isProcessGroupAlive(server)).toBe(true);
  });

  it("removes the server's temp root when it stops an orphan; never a kept root, nor while a bridge is linked", async () => {
    const root = (kept: boolean) => {
      const dir = mkdtempSync(join(tmpdir(), "ocb-opencode-"));
      mkdirSync(join(dir, "data"));
      if (kept) writeFileSync(join(dir, "KEPT-BY-OPENCODE-BRIDGE"), "");
      return dir;
    };
    /** A keeper told of `tempRoot`, its bridge ended by `end`; resolves once the keeper exits. */
    const keeperOf = async (tempRoot: string, end: (keeper: ServerKeeper) => void) => {
      const keeper = startKeeper(fakeServer(), 0, undefined, tempRoot);
      if (keeper === undefined) throw new Error("no keeper started");
      trackProcess(keeper.pid, "keeper (temp root test)");
      await until("the keeper listens", () => accepting(keeper.socket));
      end(keeper);
      await until("the keeper exits", () => !isRunning(keeper.pid ?? 0));
    };
    const temp = root(false);
    await keeperOf(temp, (keeper) => keeper.release()); // the bridge is gone
    expect(existsSync(temp)).toBe(false);
    // A kept root (its mark inside) stays, whatever the keeper was told.
    const kept = root(true);
    await keeperOf(kept, (keeper) => keeper.release());
    expect(existsSync(join(kept, "data"))).toBe(true);
    // Stopped by its bridge (a close on purpose): the bridge removes the root itself, after.
    const owned = root(false);
    await keeperOf(owned, (keeper) => keeper.stop());
    expect(existsSync(join(owned, "data"))).toBe(true);
    rmSync(kept, { recursive: true, force: true });
    rmSync(owned, { recursive: true, force: true });
  });

  it("startKeeper: release() drops the link, so the keeper keeps the server for its bound only", async () => {
    const server = fakeServer();
    const kept = startKeeper(server, 0); // bound 0: it stops the orphan at once
    trackProcess(kept?.pid, "keeper (startKeeper release test)");
    await until("the keeper listens", () => accepting(kept?.socket ?? ""));
    kept?.release();
    await until("the server is stopped", () => !isProcessGroupAlive(server));
    await until("the keeper exits", () => !isRunning(kept?.pid ?? 0));
  });
});
