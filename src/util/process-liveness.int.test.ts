import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { trackProcess } from "../../test/support/process-tracker.js";
import { isProcessGroupRunning, isProcessRunning, readProcStat } from "./process-liveness.js";

describe("process liveness", () => {
  it("finds this process running and a reaped child gone", () => {
    expect(isProcessRunning(process.pid)).toBe(true);
    const child = spawnSync(process.execPath, ["-e", ""]);
    trackProcess(child.pid, "liveness probe child");
    expect(child.pid).toBeGreaterThan(0);
    expect(isProcessRunning(child.pid)).toBe(false);
  });

  it.runIf(process.platform === "linux")("reads parent and group from /proc", () => {
    const stat = readProcStat(process.pid);
    expect(stat?.ppid).toBe(process.ppid);
    expect(stat?.state).not.toBe("Z");
    expect(stat !== undefined && isProcessGroupRunning(stat.pgrp)).toBe(true);
    expect(readProcStat(2 ** 30)).toBeUndefined();
  });
});
