/**
 * The runtime's queue on its own: inputs held in order (a superseding one at the front),
 * released one at a time and only while the backend is free, a refused one reported and the
 * next one tried.
 */
import { describe, expect, it } from "vitest";
import { type HeldInput, HeldInputs } from "./held-inputs.js";

const flush = () => new Promise((resolve) => setImmediate(resolve));

const held = (inputId: string): HeldInput => ({
  inputId,
  input: { text: `text of ${inputId}`, delivery: "queue" },
});

/** A queue over a fake backend: sends settle when the test says so. */
function queue() {
  const state = { free: true };
  const sent: string[] = [];
  const failed: { inputId: string; error: unknown }[] = [];
  const settle: ((error?: Error) => void)[] = [];
  const inputs = new HeldInputs({
    free: () => state.free,
    send: (entry) => {
      sent.push(entry.inputId);
      return new Promise<void>((resolve, reject) => {
        settle.push((error) => (error === undefined ? resolve() : reject(error)));
      });
    },
    failed: (entry, error) => failed.push({ inputId: entry.inputId, error }),
  });
  /** The backend took (or, with `error`, refused) the oldest unsettled send. */
  const settleNext = async (error?: Error) => {
    settle.shift()?.(error);
    await flush();
  };
  return { inputs, state, sent, failed, settleNext };
}

describe("HeldInputs", () => {
  it("holds inputs in order, a superseding one at the front", () => {
    const { inputs } = queue();
    inputs.hold(held("in_1"), "back");
    inputs.hold(held("in_2"), "back");
    inputs.hold(held("in_now"), "front");
    expect(inputs.size).toBe(3);
    expect(inputs.takeAll().map((entry) => entry.inputId)).toEqual(["in_now", "in_1", "in_2"]);
    expect(inputs.size).toBe(0);
  });

  it("releases nothing while the backend is busy", () => {
    const { inputs, state, sent } = queue();
    state.free = false;
    inputs.hold(held("in_1"), "back");
    inputs.release();
    expect(sent).toEqual([]);
    expect(inputs.size).toBe(1);
  });

  it("sends one at a time: the next waits until the previous send settled", async () => {
    const { inputs, sent, settleNext } = queue();
    inputs.hold(held("in_1"), "back");
    inputs.hold(held("in_2"), "back");
    inputs.release();
    inputs.release(); // a second release while the first send is under way does nothing
    expect(sent).toEqual(["in_1"]);
    await settleNext();
    expect(sent).toEqual(["in_1", "in_2"]);
    await settleNext();
    expect(inputs.size).toBe(0);
  });

  it("after a send settled, waits again while the backend is busy with it", async () => {
    const { inputs, state, sent, settleNext } = queue();
    inputs.hold(held("in_1"), "back");
    inputs.hold(held("in_2"), "back");
    inputs.release();
    state.free = false; // the released input's turn runs
    await settleNext();
    expect(sent).toEqual(["in_1"]);
    state.free = true; // its turn ended: the session releases again
    inputs.release();
    expect(sent).toEqual(["in_1", "in_2"]);
  });

  it("reports a send the backend refused, and goes on with the next", async () => {
    const { inputs, sent, failed, settleNext } = queue();
    inputs.hold(held("in_1"), "back");
    inputs.hold(held("in_2"), "back");
    inputs.release();
    const refusal = new Error("server went away");
    await settleNext(refusal);
    expect(failed).toEqual([{ inputId: "in_1", error: refusal }]);
    expect(sent).toEqual(["in_1", "in_2"]);
  });

  it("a send that throws at once is reported the same way", async () => {
    const failed: string[] = [];
    const inputs = new HeldInputs({
      free: () => true,
      send: async () => {
        throw new Error("refused at once");
      },
      failed: (entry) => failed.push(entry.inputId),
    });
    inputs.hold(held("in_1"), "back");
    inputs.release();
    await flush();
    expect(failed).toEqual(["in_1"]);
  });

  it("releases nothing when nothing is held", () => {
    const { inputs, sent } = queue();
    inputs.release();
    expect(sent).toEqual([]);
  });

  it("takes one input out by id, the others keeping their order; not one being sent", async () => {
    const { inputs, state, sent } = queue();
    state.free = false;
    for (const id of ["a", "b", "c"]) inputs.hold(held(id), "back");
    expect(inputs.take("b")?.inputId).toBe("b");
    expect(inputs.take("b")).toBeUndefined();
    expect(inputs.size).toBe(2);
    state.free = true;
    inputs.release();
    expect(sent).toEqual(["a"]);
    expect(inputs.take("a")).toBeUndefined(); // handed to the backend already
    expect(inputs.take("c")?.inputId).toBe("c");
    expect(inputs.size).toBe(0);
  });
});
