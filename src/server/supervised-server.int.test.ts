/**
 * SupervisedServer's restarts with a fake start function: a restart that never gets ready
 * must not hold up close() or a caller waiting for it with a signal.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { isRunning, trackProcess } from "../../test/support/process-tracker.js";
import { AbortError } from "../errors.js";
import type { OpencodeServerHandle, ServerExit } from "./server-handle.js";
import { type StartOpencodeOptions, startOpencode } from "./start-opencode.js";
import { SupervisedServer } from "./supervised-server.js";

/** A server handle whose process "dies" when the test says so. */
function fakeServer(pid?: number): OpencodeServerHandle & { crash(): void; closed: boolean } {
  let end: (exit: ServerExit) => void = () => {};
  const exited = new Promise<ServerExit>((resolve) => {
    end = resolve;
  });
  const server = {
    url: "http://127.0.0.1:45678",
    username: "opencode",
    password: "secret",
    version: "fake",
    pid,
    exited,
    closed: false,
    logTail: () => [],
    close: async () => {
      server.closed = true;
      end({ code: null, signal: null, logTail: [], expected: true });
    },
    crash: () => end({ code: 1, signal: null, logTail: ["boom"], expected: false }),
  };
  return server;
}

/** The first start succeeds; every restart hangs (never ready) until its signal fires. */
function hangingRestarts() {
  const first = fakeServer();
  const restarts: { signal: AbortSignal | undefined }[] = [];
  let startedFirst = false;
  let restartBegan: () => void = () => {};
  const began = new Promise<void>((resolve) => {
    restartBegan = resolve;
  });
  const start = async (options: StartOpencodeOptions): Promise<OpencodeServerHandle> => {
    if (!startedFirst) {
      startedFirst = true;
      return first;
    }
    const { signal } = options;
    restarts.push({ signal });
    restartBegan();
    // Like startOpencode: only the signal (or its long startup bound) ends a start that hangs.
    return new Promise((_, reject) => {
      signal?.addEventListener("abort", () => reject(new AbortError("starting")), { once: true });
    });
  };
  return { first, restarts, began, start };
}

/** Which settles first: `promise` or a generous safety net (not the thing tested). */
async function settlesBeforeNet(promise: Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const net = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("still waiting"), 5_000);
  });
  try {
    return await Promise.race([
      promise.then(
        () => "resolved",
        (error: unknown) => (error instanceof AbortError ? "aborted" : `failed: ${String(error)}`),
      ),
      net,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("SupervisedServer restarts", () => {
  it("close() aborts a restart in progress that never gets ready", async () => {
    const fake = hangingRestarts();
    const server = await SupervisedServer.start(
      { inheritUserConfig: true },
      { initialDelayMs: 0 },
      fake.start,
    );
    fake.first.crash();
    await fake.began;
    expect(await settlesBeforeNet(server.close())).toBe("resolved");
    expect(fake.restarts).toHaveLength(1);
    expect(fake.restarts[0]?.signal?.aborted).toBe(true);
  });

  it("close() does not wait out the back-off before a restart", async () => {
    const fake = hangingRestarts();
    const server = await SupervisedServer.start(
      { inheritUserConfig: true },
      { initialDelayMs: 600_000 },
      fake.start,
    );
    fake.first.crash();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await settlesBeforeNet(server.close())).toBe("resolved");
    expect(fake.restarts).toHaveLength(0);
  });

  it("restarted(signal) rejects with AbortError when the signal fires mid-restart", async () => {
    const fake = hangingRestarts();
    const server = await SupervisedServer.start(
      { inheritUserConfig: true },
      { initialDelayMs: 0 },
      fake.start,
    );
    fake.first.crash();
    await fake.began;
    const send = new AbortController();
    const waiting = server.restarted(send.signal);
    send.abort();
    expect(await settlesBeforeNet(waiting)).toBe("aborted");
    await server.close();
  });

  it("restarted() waits for the restart when the process died and its exit is not heard yet", async () => {
    // A real process that has exited stands for the server SIGKILLed a moment ago.
    const dead = spawn(process.execPath, ["-e", ""]);
    await once(dead, "exit");
    const first = fakeServer(dead.pid);
    const second = fakeServer();
    let starts = 0;
    const server = await SupervisedServer.start(
      { inheritUserConfig: true },
      { initialDelayMs: 0 },
      async () => (++starts === 1 ? first : second),
    );
    let back = false;
    const waiting = server.restarted().then(() => {
      back = true;
    });
    await delay(50);
    expect(back).toBe(false);
    first.crash(); // the exit is heard now: the restart follows
    await waiting;
    expect(starts).toBe(2);
    await server.close();
  });

  it("close() kills the process a restart had half started (a real one that never listens)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocb-supervised-test-"));
    const pidFile = join(dir, "pids");
    const first = fakeServer();
    let starts = 0;
    // The first start is the fake; the restart runs a real process that never gets ready.
    const start = async (options: StartOpencodeOptions): Promise<OpencodeServerHandle> =>
      ++starts === 1 ? first : startOpencode(options);
    try {
      const server = await SupervisedServer.start(
        {
          inheritUserConfig: true,
          directory: dir,
          binary: join(import.meta.dirname, "../../test/fixtures/fake-binaries/never-listens.sh"),
          env: { FAKE_PID_FILE: pidFile },
        },
        { initialDelayMs: 0 },
        start,
      );
      first.crash();
      for (let tries = 0; tries < 100 && !existsSync(pidFile); tries++) await delay(50);
      const [leader = 0, child = 0] = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
      trackProcess(leader, "fake binary (supervised-server.int.test)");
      trackProcess(child, "fake binary's child (supervised-server.int.test)");
      expect(await settlesBeforeNet(server.close())).toBe("resolved");
      expect([isRunning(leader), isRunning(child)]).toEqual([false, false]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
