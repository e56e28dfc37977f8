import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit.js";

/** A commit function that records its batches and waits for the test to let each one finish. */
function recordingCommit() {
  const batches: number[][] = [];
  const finishers: ((error?: Error) => void)[] = [];
  const commit = (jobs: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push([...jobs]);
      finishers.push((error) => (error ? reject(error) : resolve(jobs.map((job) => job * 10))));
    });
  return { batches, finishers, commit };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("GroupCommit", () => {
  it("commits a tick's jobs together, and what comes during a commit in the next one", async () => {
    const { batches, finishers, commit } = recordingCommit();
    const group = new GroupCommit(commit);
    const first = [group.submit(1), group.submit(2)];
    await tick();
    const second = [group.submit(3), group.submit(4)];
    await tick();
    expect(batches).toEqual([[1, 2]]);
    finishers[0]?.();
    expect(await Promise.all(first)).toEqual([10, 20]);
    await tick();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    finishers[1]?.();
    expect(await Promise.all(second)).toEqual([30, 40]);
  });

  it("a failed commit rejects every job it carried, and the next one still runs", async () => {
    const { batches, finishers, commit } = recordingCommit();
    const group = new GroupCommit(commit);
    const failed = [group.submit(1), group.submit(2)].map((job) =>
      job.catch((error: Error) => error.message),
    );
    await tick();
    const later = group.submit(3);
    finishers[0]?.(new Error("disk full"));
    expect(await Promise.all(failed)).toEqual(["disk full", "disk full"]);
    await tick();
    finishers[1]?.();
    expect(await later).toBe(30);
    expect(batches).toEqual([[1, 2], [3]]);
  });

  it("drain waits for every job submitted before it", async () => {
    const { finishers, commit } = recordingCommit();
    const group = new GroupCommit(commit);
    const done: number[] = [];
    void group.submit(1).then((result) => done.push(result));
    const drained = group.drain().then(() => done.push(-1));
    await tick();
    finishers[0]?.();
    await drained;
    expect(done).toEqual([10, -1]);
  });

  it("drain does not wait for jobs submitted after it", async () => {
    const { finishers, commit } = recordingCommit();
    const group = new GroupCommit(commit);
    void group.submit(1);
    const drained = group.drain();
    await tick();
    const later = group.submit(2); // waits for the next commit, which the test never finishes
    finishers[0]?.();
    await drained;
    await tick();
    finishers[1]?.();
    expect(await later).toBe(20);
  });
});
