/**
 * The unit tier's guard (test/setup/no-processes.ts): in a unit test every way of starting a
 * process throws, naming the tier rule, whether the test imports the function by name, takes
 * it off the module, or reaches it through a helper that spawns, so such a test fails at once.
 */
import childProcess, {
  exec,
  execFile,
  execFileSync,
  execSync,
  fork,
  spawn,
  spawnSync,
} from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { PROCESS_STARTERS } from "./setup/no-processes.js";
import { runCommand } from "./support/run-command.js";

const RULE = /a unit test starts no process.*\*\.int\.test\.ts/;

describe("the unit tier's guard", () => {
  it("makes each named import of node:child_process that starts a process throw", () => {
    const named = { exec, execFile, execFileSync, execSync, fork, spawn, spawnSync };
    expect(Object.keys(named).sort()).toEqual([...PROCESS_STARTERS].sort());
    for (const [name, start] of Object.entries(named)) {
      expect(() => (start as (command: string) => unknown)(process.execPath), name).toThrow(RULE);
    }
  });

  it("patches the module object too (a CommonJS require sees the same object)", () => {
    for (const starter of PROCESS_STARTERS) {
      const fromDefault = childProcess[starter] as (command: string) => unknown;
      expect(() => fromDefault(process.execPath), starter).toThrow(RULE);
    }
  });

  it("fails a test that starts a process through a helper, promisified or not", async () => {
    await expect(
      runCommand(process.execPath, ["-e", ""], { cwd: process.cwd(), boundMs: 5_000 }),
    ).rejects.toThrow(RULE);
    await expect(promisify(execFile)(process.execPath, ["-e", ""])).rejects.toThrow(RULE);
  });
});
