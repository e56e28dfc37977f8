import { afterEach, describe, expect, it } from "vitest";
import { STOP_WITH_PARENT_ENV, stopWithParent } from "./parent-watch.js";

afterEach(() => {
  delete process.env[STOP_WITH_PARENT_ENV];
});

describe("stopWithParent", () => {
  it("tells once the named parent is not this process's parent any more", () => {
    process.env[STOP_WITH_PARENT_ENV] = String(process.pid); // never its own parent
    const told: string[] = [];
    const stop = stopWithParent((what) => told.push(what));
    stop();
    expect(told).toEqual([`the parent process ${process.pid} exited`]);
    // Not inherited by what this process starts.
    expect(process.env[STOP_WITH_PARENT_ENV]).toBeUndefined();
  });

  it("stays quiet while the named parent is alive, and without the variable", () => {
    const told: string[] = [];
    process.env[STOP_WITH_PARENT_ENV] = String(process.ppid);
    const stopAlive = stopWithParent((what) => told.push(what));
    const stopUnset = stopWithParent((what) => told.push(what));
    stopAlive();
    stopUnset();
    expect(told).toEqual([]);
  });
});
