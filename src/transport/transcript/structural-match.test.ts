/** Matching recorded calls against live ones, and rewriting recorded frames for the run. */
import { describe, expect, it } from "vitest";
import { findMismatch, type MatchContext, rewriteForRun } from "./structural-match.js";

const WORK = "/home/someone/project";

function context(remaps: Record<string, string> = {}): MatchContext {
  return { directory: WORK, remaps: new Map(Object.entries(remaps)) };
}

describe("findMismatch", () => {
  it("matches objects as a subset: extra actual keys are fine", () => {
    const recorded = { sessionID: "ses_1", prompt: { text: "hi" } };
    const actual = { sessionID: "ses_1", prompt: { text: "hi", files: [] }, delivery: "queue" };
    expect(findMismatch(recorded, actual, context())).toBeUndefined();
  });

  it("names the path of a recorded key the call lacks", () => {
    const recorded = { prompt: { text: "hi", agent: "build" } };
    expect(findMismatch(recorded, { prompt: { text: "hi" } }, context())).toEqual({
      path: "prompt.agent",
      expected: "build",
      actual: undefined,
    });
  });

  it("names the path of a differing value", () => {
    const recorded = { prompt: { parts: [{ text: "a" }, { text: "b" }] } };
    const actual = { prompt: { parts: [{ text: "a" }, { text: "c" }] } };
    expect(findMismatch(recorded, actual, context())).toEqual({
      path: "prompt.parts[1].text",
      expected: "b",
      actual: "c",
    });
  });

  it("requires arrays of the same length", () => {
    expect(findMismatch({ tags: [1, 2] }, { tags: [1, 2] }, context())).toBeUndefined();
    expect(findMismatch({ tags: [1, 2] }, { tags: [1, 2, 3] }, context())).toMatchObject({
      path: "tags",
    });
    expect(findMismatch({ tags: [1, 2] }, { tags: [1] }, context())).toMatchObject({
      path: "tags",
    });
    expect(findMismatch({ tags: [] }, { tags: {} }, context())).toMatchObject({ path: "tags" });
  });

  it("compares scalars exactly", () => {
    expect(
      findMismatch({ n: 1, ok: true, none: null }, { n: 1, ok: true, none: null }, context()),
    ).toBeUndefined();
    expect(findMismatch({ n: 1 }, { n: "1" }, context())).toMatchObject({ path: "n" });
    expect(findMismatch({ none: null }, { none: {} }, context())).toMatchObject({ path: "none" });
    expect(findMismatch({ inner: {} }, { inner: null }, context())).toMatchObject({
      path: "inner",
    });
  });

  it('lets "<any>" match any value, at the top and deep down', () => {
    expect(findMismatch("<any>", { whatever: [1] }, context())).toBeUndefined();
    expect(findMismatch({ text: "<any>" }, { text: 42 }, context())).toBeUndefined();
    expect(findMismatch({ a: ["<any>", 2] }, { a: [{ x: 1 }, 2] }, context())).toBeUndefined();
  });

  it.each(["<work>", "<workspace>"])(
    "reads %s as the run's directory, wherever it stands in a string",
    (placeholder) => {
      expect(
        findMismatch({ directory: placeholder }, { directory: WORK }, context()),
      ).toBeUndefined();
      expect(
        findMismatch({ path: `${placeholder}/src/a.ts` }, { path: `${WORK}/src/a.ts` }, context()),
      ).toBeUndefined();
      expect(
        findMismatch({ directory: placeholder }, { directory: "/elsewhere" }, context()),
      ).toEqual({ path: "directory", expected: placeholder, actual: "/elsewhere" });
      // The recorder replaces the directory anywhere in a string, so the replay reads it back
      // anywhere too (a message that quotes a path, a path with a suffix).
      expect(
        findMismatch(
          { message: `cannot read ${placeholder}/a.ts` },
          { message: `cannot read ${WORK}/a.ts` },
          context(),
        ),
      ).toBeUndefined();
      expect(
        findMismatch({ path: `${placeholder}x` }, { path: `${WORK}x` }, context()),
      ).toBeUndefined();
    },
  );

  describe("client-chosen ids", () => {
    it.each(["id", "messageID", "partID"])("remaps an id under %s with the same prefix", (key) => {
      const run = context();
      expect(findMismatch({ [key]: "msg_old" }, { [key]: "msg_new" }, run)).toBeUndefined();
      expect(run.remaps.get("msg_old")).toBe("msg_new");
    });

    it("remaps ids deep in the input", () => {
      const run = context();
      const recorded = { prompt: { parts: [{ partID: "prt_old", text: "hi" }] } };
      const actual = { prompt: { parts: [{ partID: "prt_new", text: "hi" }] } };
      expect(findMismatch(recorded, actual, run)).toBeUndefined();
      expect(run.remaps.get("prt_old")).toBe("prt_new");
    });

    it("does not remap an id with another prefix", () => {
      const run = context();
      expect(findMismatch({ messageID: "msg_old" }, { messageID: "prt_new" }, run)).toEqual({
        path: "messageID",
        expected: "msg_old",
        actual: "prt_new",
      });
      expect(run.remaps.size).toBe(0);
    });

    it("does not remap under other keys", () => {
      const run = context();
      expect(findMismatch({ sessionID: "ses_old" }, { sessionID: "ses_new" }, run)).toMatchObject({
        path: "sessionID",
      });
      expect(run.remaps.size).toBe(0);
    });

    it("keeps a remembered remap: the same recorded id must stay the same new id", () => {
      const run = context();
      expect(findMismatch({ id: "msg_old" }, { id: "msg_new" }, run)).toBeUndefined();
      expect(findMismatch({ messageID: "msg_old" }, { messageID: "msg_new" }, run)).toBeUndefined();
      expect(findMismatch({ messageID: "msg_old" }, { messageID: "msg_other" }, run)).toEqual({
        path: "messageID",
        expected: "msg_old",
        actual: "msg_other",
      });
      expect(run.remaps.get("msg_old")).toBe("msg_new");
    });

    it("does not let two recorded ids become the same new id", () => {
      const run = context();
      expect(findMismatch({ id: "msg_a" }, { id: "msg_new" }, run)).toBeUndefined();
      expect(findMismatch({ id: "msg_b" }, { id: "msg_new" }, run)).toMatchObject({ path: "id" });
      expect(run.remaps.has("msg_b")).toBe(false);
    });

    it("accepts the recorded id itself", () => {
      const run = context();
      expect(findMismatch({ id: "msg_same" }, { id: "msg_same" }, run)).toBeUndefined();
      expect(findMismatch({ id: "msg_same" }, { id: "msg_same" }, run)).toBeUndefined();
    });
  });
});

describe("rewriteForRun", () => {
  it("replaces remapped ids and directory placeholders deep in a frame", () => {
    const run = context({ msg_old: "msg_new", prt_old: "prt_new" });
    const frame = {
      type: "message.part.updated",
      location: { directory: "<work>" },
      data: {
        messageID: "msg_old",
        parts: [{ id: "prt_old", file: "<workspace>/src/a.ts" }, "msg_old", 3, null, true],
        other: "msg_unrelated",
        text: "files in <work>: msg_old",
      },
    };
    expect(rewriteForRun(frame, run)).toEqual({
      type: "message.part.updated",
      location: { directory: WORK },
      data: {
        messageID: "msg_new",
        parts: [{ id: "prt_new", file: `${WORK}/src/a.ts` }, "msg_new", 3, null, true],
        other: "msg_unrelated",
        // Placeholders anywhere in a string, ids only as whole values.
        text: `files in ${WORK}: msg_old`,
      },
    });
  });

  it("leaves the recorded frame unchanged", () => {
    const frame = { directory: "<work>", id: "msg_old" };
    rewriteForRun(frame, context({ msg_old: "msg_new" }));
    expect(frame).toEqual({ directory: "<work>", id: "msg_old" });
  });

  it("sees remaps made by a later match", () => {
    const run = context();
    findMismatch({ id: "msg_old" }, { id: "msg_new" }, run);
    expect(rewriteForRun({ data: { messageID: "msg_old" } }, run)).toEqual({
      data: { messageID: "msg_new" },
    });
  });
});
