import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { anySignalWithTimeout } from "./timeout-signal.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const until = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("anySignalWithTimeout", () => {
  it("aborts when its time is up, with garbage collections while it runs", async () => {
    const other = new AbortController();
    const signal = anySignalWithTimeout([other.signal], 100);
    // Collections while the time runs, as a busy process has them. Well past the time: the
    // bound of this wait, not a speed check.
    for (let waited = 0; waited < 2_000 && !signal.aborted; waited += 20) {
      collectGarbage();
      await until(20);
    }
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe("TimeoutError");
  });

  it("aborts with a source's reason when the source aborts first", () => {
    const other = new AbortController();
    const signal = anySignalWithTimeout([other.signal], 60_000);
    other.abort(new Error("closed"));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe("closed");
  });

  it("is aborted at once when a source already is", () => {
    const signal = anySignalWithTimeout([AbortSignal.abort(new Error("gone"))], 60_000);
    expect((signal.reason as Error).message).toBe("gone");
  });
});
