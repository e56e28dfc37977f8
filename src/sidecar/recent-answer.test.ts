import { describe, expect, it } from "vitest";
import { RecentAnswer } from "./recent-answer.js";

/** A check that counts its calls and answers when told, on a clock the test moves. */
function counted() {
  let clock = 0;
  let calls = 0;
  const answers: ((value: string) => void)[] = [];
  const recent = new RecentAnswer(
    () => {
      calls++;
      return new Promise<string>((resolve) => answers.push(resolve));
    },
    1_000,
    () => clock,
  );
  return {
    recent,
    calls: () => calls,
    answer: (value: string) => answers.shift()?.(value),
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe("RecentAnswer", () => {
  it("shares one call among callers while it is out, then reuses its answer until ttlMs passed", async () => {
    const check = counted();
    const waiting = Array.from({ length: 50 }, () => check.recent.get());
    expect(check.calls()).toBe(1);
    check.answer("up");
    expect(await Promise.all(waiting)).toEqual(Array(50).fill("up"));
    check.advance(999);
    expect(await check.recent.get()).toBe("up");
    expect(check.calls()).toBe(1);
    check.advance(1);
    const next = check.recent.get();
    expect(check.calls()).toBe(2);
    check.answer("down");
    expect(await next).toBe("down");
  });

  it("keeps no failed call: the next caller asks again", async () => {
    let calls = 0;
    const recent = new RecentAnswer(async () => {
      calls++;
      if (calls === 1) throw new Error("no answer");
      return "up";
    }, 1_000);
    await expect(recent.get()).rejects.toThrow("no answer");
    expect(await recent.get()).toBe("up");
    expect(calls).toBe(2);
  });
});
