import { describe, expect, it } from "vitest";
import { AbortError, TimeoutError } from "../errors.js";
import { sleep, withDeadline } from "./abort.js";

describe("withDeadline", () => {
  it("reports its own timeout as a TimeoutError even when a nested wait says AbortError", async () => {
    const deadline = withDeadline("outer wait", 20);
    const error = await sleep(5_000, deadline.signal, "inner wait").catch((caught) => caught);
    expect(error).toBeInstanceOf(AbortError); // the inner wait only sees its signal fire
    const classified = deadline.classify(error);
    deadline.dispose();
    expect(classified).toBeInstanceOf(TimeoutError);
    expect((classified as TimeoutError).message).toContain("outer wait");
  });

  it("reports the caller's abort as an AbortError", async () => {
    const controller = new AbortController();
    const deadline = withDeadline("outer wait", 5_000, controller.signal);
    setTimeout(() => controller.abort(), 10);
    const error = await sleep(5_000, deadline.signal).catch((caught) => caught);
    const classified = deadline.classify(error);
    deadline.dispose();
    expect(classified).toBeInstanceOf(AbortError);
  });

  it("leaves an unrelated error alone", () => {
    const deadline = withDeadline("wait", 5_000);
    const error = new Error("boom");
    expect(deadline.classify(error)).toBe(error);
    deadline.dispose();
  });
});
