/**
 * Tests record the pid of every process they start here; the global teardown then checks,
 * by pid, that none of them is still alive after the suite.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { isProcessRunning } from "../../src/util/process-liveness.js";

export const PID_DIR_ENV = "OCB_TEST_PID_DIR";

/** Remembers a process started by a test (an `opencode` server, a fake binary, …). */
export function trackProcess(pid: number | undefined, label: string): void {
  const dir = process.env[PID_DIR_ENV];
  if (dir === undefined || pid === undefined) return;
  appendFileSync(join(dir, `${process.pid}.pids`), `${pid}\t${label}\n`);
}

/** Running, that is: a zombie waiting for a slow init to reap it has already exited. */
export const isRunning: (pid: number) => boolean = isProcessRunning;
