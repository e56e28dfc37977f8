/**
 * startOpencode against fake binaries: every way a start can fail must end in a clear
 * error within the bound, with the process group gone and the temp dir removed.
 * (The real binary: start-opencode.real.int.test.ts.)
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isRunning, trackProcess } from "../../test/support/process-tracker.js";
import { recordingLogger } from "../../test/support/recording-logger.js";
import { AbortError, ServerStartError, UsageError } from "../errors.js";
import { REDACTED } from "./log-tail.js";
import { type StartOpencodeOptions, startOpencode } from "./start-opencode.js";

const fakes = join(import.meta.dirname, "../../test/fixtures/fake-binaries");
const fake = (name: string): string => join(fakes, name);

let dir: string;
let pidFile: string;
const groups: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-start-test-"));
  pidFile = join(dir, "pids");
});

afterEach(() => {
  // Only reached for a failed test: a passing one has already proven the group gone.
  for (const pid of groups.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `binary` expecting failure; returns the error and how long it took. */
async function failToStart(
  binary: string,
  options: StartOpencodeOptions = {},
): Promise<{ error: unknown; elapsedMs: number }> {
  const startedAt = Date.now();
  try {
    const handle = await startOpencode({
      directory: dir,
      binary,
      env: { FAKE_PID_FILE: pidFile },
      ...options,
    });
    trackProcess(handle.pid, "unexpectedly started fake");
    await handle.close();
  } catch (error) {
    return { error, elapsedMs: Date.now() - startedAt };
  }
  throw new Error(`${binary} started, but was expected to fail`);
}

/** The pids and data dir a fixture wrote to FAKE_PID_FILE. */
function fixtureRecord(): { leader: number; child: number; dataDir: string } {
  const [leader = "", child = "", dataDir = ""] = readFileSync(pidFile, "utf8").trim().split(" ");
  for (const pid of [leader, child])
    trackProcess(Number(pid), "fake binary (start-opencode.int.test)");
  groups.push(Number(leader));
  return { leader: Number(leader), child: Number(child), dataDir };
}

function expectCleanedUp(record: { leader: number; child: number; dataDir: string }): void {
  expect(isRunning(record.leader)).toBe(false);
  expect(isRunning(record.child)).toBe(false);
  expect(record.dataDir).toContain("ocb-opencode-");
  expect(existsSync(dirname(record.dataDir))).toBe(false);
}

describe("startOpencode failures", () => {
  it("a binary path that does not exist: ServerStartError naming it (ENOENT)", async () => {
    const missing = join(dir, "no-such-opencode");
    const { error, elapsedMs } = await failToStart(missing);
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as ServerStartError).message).toContain(missing);
    expect((error as ServerStartError).message).toContain("ENOENT");
    expect(elapsedMs).toBeLessThan(5000);
  });

  it("a binary that is not executable: ServerStartError (EACCES)", async () => {
    const binary = join(dir, "opencode");
    writeFileSync(binary, "#!/bin/sh\nexit 0\n");
    chmodSync(binary, 0o644);
    const { error } = await failToStart(binary);
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as ServerStartError).message).toMatch(/EACCES.*chmod \+x/);
  });

  it("a binary that exits at once: its exit code and output", async () => {
    const { error, elapsedMs } = await failToStart(fake("exits-at-once.sh"));
    expect(error).toBeInstanceOf(ServerStartError);
    const startError = error as ServerStartError;
    expect(startError.exitCode).toBe(3);
    expect(startError.message).toMatch(/exited with code 3 before it was ready/);
    expect(startError.logTail).toContain("fake opencode: cannot load config, giving up");
    expect(startError.message).toContain("cannot load config");
    expect(elapsedMs).toBeLessThan(5000);
  });

  it("a binary that never listens: timeout error, group killed, temp dir removed", async () => {
    const { error, elapsedMs } = await failToStart(fake("never-listens.sh"), {
      startupTimeoutMs: 1500,
    });
    expect(error).toBeInstanceOf(ServerStartError);
    const startError = error as ServerStartError;
    expect(startError.message).toContain(
      "did not become ready within 1500 ms: it never printed its listening line; raise startupTimeoutMs",
    );
    expect(startError.logTail).toContain("fake opencode: starting, but never listening");
    expect(startError.signal).toBe("SIGTERM");
    expect(elapsedMs).toBeGreaterThanOrEqual(1500);
    expect(elapsedMs).toBeLessThan(1500 + 3000);
    expectCleanedUp(fixtureRecord());
  });

  it("a binary that never listens and ignores SIGTERM: SIGKILL after the grace period", async () => {
    const { error, elapsedMs } = await failToStart(fake("never-listens-ignores-term.sh"), {
      startupTimeoutMs: 1500,
    });
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as ServerStartError).signal).toBe("SIGKILL");
    expect(elapsedMs).toBeLessThan(1500 + 3000 + 3000);
    expectCleanedUp(fixtureRecord());
  });

  it("a binary that listens but never answers health: says where it got stuck", async () => {
    const { error } = await failToStart(fake("listens-never-healthy.mjs"), {
      startupTimeoutMs: 3000,
    });
    expect(error).toBeInstanceOf(ServerStartError);
    // The last probe's own bound (2000 ms) is named when a probe ran out before the deadline; on
    // a busy machine the fake listens late and the deadline cuts the first probe short.
    expect((error as ServerStartError).message).toMatch(
      /within 3000 ms: it listens on http:\/\/127\.0\.0\.1:\d+ but \/global\/health did not answer healthy( \(last: .*did not finish within 2000 ms\))?;/,
    );
  });

  it("never lets the password into the tail, the error or the logger", async () => {
    const password = "correct-horse-battery-staple-42";
    const logger = recordingLogger();
    const { entries } = logger;
    const { error } = await failToStart(fake("prints-secret.sh"), { password, logger });
    expect(error).toBeInstanceOf(ServerStartError);
    const startError = error as ServerStartError;
    const basic = Buffer.from(`opencode:${password}`).toString("base64");
    const everything = JSON.stringify([startError.message, startError.logTail, entries]);
    expect(everything).not.toContain(password);
    expect(everything).not.toContain(basic);
    // Lines from stdout and stderr interleave in whichever order the pipes are read.
    expect([...startError.logTail].sort()).toEqual([
      `fake opencode: Authorization: Basic ${REDACTED}`,
      `fake opencode: partial ${REDACTED}`,
      `fake opencode: password is ${REDACTED}`,
    ]);
    // The forwarded lines are the redacted ones.
    expect(
      entries.filter((entry) => entry.level === "debug").map((entry) => entry.message),
    ).toEqual(expect.arrayContaining([`fake opencode: password is ${REDACTED}`]));
  });

  it("abort while starting: AbortError, and the same cleanup", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user pressed stop")), 300);
    const { error, elapsedMs } = await failToStart(fake("never-listens.sh"), {
      signal: controller.signal,
    });
    expect(error).toBeInstanceOf(AbortError);
    expect(elapsedMs).toBeLessThan(300 + 3000);
    expectCleanedUp(fixtureRecord());
  });

  it("an already aborted signal spawns nothing", async () => {
    const { error } = await failToStart(fake("never-listens.sh"), { signal: AbortSignal.abort() });
    expect(error).toBeInstanceOf(AbortError);
    expect(existsSync(pidFile)).toBe(false);
  });

  it("invalid options: UsageError before anything starts", async () => {
    const missingDir = await failToStart(fake("never-listens.sh"), {
      directory: join(dir, "missing"),
    });
    expect(missingDir.error).toBeInstanceOf(UsageError);
    expect((missingDir.error as UsageError).message).toContain(join(dir, "missing"));
    const badPort = await failToStart(fake("never-listens.sh"), { port: 70_000 });
    expect(badPort.error).toBeInstanceOf(UsageError);
    const badPassword = await failToStart(fake("never-listens.sh"), { password: "" });
    expect(badPassword.error).toBeInstanceOf(UsageError);
    expect(existsSync(pidFile)).toBe(false);
  });

  it("a hostname this machine does not have: ServerStartError naming it", async () => {
    const { error } = await failToStart(fake("never-listens.sh"), { hostname: "192.0.2.1" });
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as ServerStartError).message).toMatch(
      /could not find a free port on 192\.0\.2\.1: .*EADDRNOTAVAIL/,
    );
    expect(existsSync(pidFile)).toBe(false);
  });

  it("warns when asked to run without a password", async () => {
    const logger = recordingLogger();
    const { entries } = logger;
    await failToStart(fake("exits-at-once.sh"), { password: false, logger });
    expect(
      entries.some((entry) => entry.level === "warn" && /without a password/.test(entry.message)),
    ).toBe(true);
  });
});
