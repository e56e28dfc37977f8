import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isRunning, trackProcess } from "../../test/support/process-tracker.js";
import { isProcessGroupAlive, terminateProcessGroup } from "./process-group.js";

const fakes = join(import.meta.dirname, "../../test/fixtures/fake-binaries");

let dir: string;
const started: number[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-group-test-"));
});
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone, as it should be
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a fixture as a group leader and waits until it has written its pids. */
async function startFixture(name: string): Promise<{ pids: number[]; exited: Promise<unknown> }> {
  const pidFile = join(dir, `${name}.pids`);
  const child = spawn(join(fakes, name), [], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, FAKE_PID_FILE: pidFile },
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  started.push(child.pid);
  trackProcess(child.pid, name);
  for (let i = 0; i < 100; i++) {
    const text = readIfThere(pidFile);
    if (text?.endsWith("\n")) {
      const pids = text.trim().split(" ").slice(0, 2).map(Number);
      for (const pid of pids) trackProcess(pid, `${name} (member)`);
      return { pids, exited };
    }
    await delay(20);
  }
  throw new Error(`${name} never wrote ${pidFile}`);
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

describe("terminateProcessGroup", () => {
  it("stops a cooperative group with SIGTERM alone", async () => {
    const { pids, exited } = await startFixture("never-listens.sh");
    const [leader = 0, child = 0] = pids;
    expect(isProcessGroupAlive(leader)).toBe(true);
    expect(await terminateProcessGroup(leader, exited)).toEqual({ forced: false, gone: true });
    expect(isRunning(leader)).toBe(false);
    expect(isRunning(child)).toBe(false);
  });

  it("escalates to SIGKILL when the group ignores SIGTERM", async () => {
    const { pids, exited } = await startFixture("never-listens-ignores-term.sh");
    const [leader = 0, child = 0] = pids;
    const startedAt = Date.now();
    const result = await terminateProcessGroup(leader, exited, { graceMs: 300 });
    expect(result).toEqual({ forced: true, gone: true });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(300);
    expect(isRunning(child)).toBe(false);
  });

  it("waits for members that outlive the leader, and kills them", async () => {
    const { pids, exited } = await startFixture("stubborn-child.sh");
    const [leader = 0, child = 0] = pids;
    const result = await terminateProcessGroup(leader, exited, { graceMs: 300 });
    // The leader died of SIGTERM at once; its child did not, so SIGKILL was still needed.
    expect(result).toEqual({ forced: true, gone: true });
    expect(isRunning(child)).toBe(false);
    expect(isProcessGroupAlive(leader)).toBe(false);
  });

  it("also stops what left the group for a session of its own (a tool's shell)", async () => {
    const { pids, exited } = await startFixture("detaches-a-tool.sh");
    const [leader = 0, detached = 0] = pids;
    expect(isProcessGroupAlive(detached)).toBe(true);
    expect(await terminateProcessGroup(leader, exited)).toEqual({ forced: false, gone: true });
    expect(isRunning(detached)).toBe(false);
  });
});
