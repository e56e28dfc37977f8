import { describe, expect, it } from "vitest";
import { liveConversationOf } from "../../../src/client/index.js";
import { NumberedEvents } from "../../../test/support/numbered-events.js";
import { filesPutBackBy } from "./turn-changes.js";
import { undoableInputs } from "./undoable-inputs.js";

const change = (path: string) => ({
  path,
  status: "modified" as const,
  additions: 1,
  deletions: 0,
});

/** A session of `count` completed turns, `in_N` starting `turn_N`. */
function turns(count: number): NumberedEvents {
  const events = new NumberedEvents("ses_1");
  for (let n = 1; n <= count; n++) {
    events
      .add("input.admitted", { inputId: `in_${n}`, text: `m${n}`, delivery: "queue" }, `turn_${n}`)
      .add("turn.started", { inputId: `in_${n}` }, `turn_${n}`)
      .add("turn.ended", { outcome: "completed", text: "" }, `turn_${n}`);
  }
  return events;
}

describe("turn changes", () => {
  it("an undo puts back what its turn and every later one changed, each path once", () => {
    const events = turns(3)
      .add("files.changed", { files: [change("a.txt")] }, "turn_1")
      .add("files.changed", { files: [change("b.txt"), change("c.txt")] }, "turn_2")
      .add("files.changed", { files: [change("c.txt")], moreFiles: 1 }, "turn_3");
    const live = liveConversationOf("ses_1", events.events);
    const { messages } = live.conversation;
    const changes = live.turnFiles;
    expect(filesPutBackBy(messages, changes, "in_2")).toEqual({
      paths: ["b.txt", "c.txt"],
      moreFiles: 1,
    });
    expect(filesPutBackBy(messages, changes, "in_3")).toEqual({ paths: ["c.txt"], moreFiles: 1 });
    expect(filesPutBackBy(messages, changes, "in_9")).toEqual({ paths: [], moreFiles: 0 });
  });
});

function undoableOf(events: NumberedEvents): ReadonlySet<string> {
  const live = liveConversationOf("ses_1", events.events);
  return undoableInputs(live.conversation, live.running);
}

describe("undoableInputs", () => {
  it("offers every input but the first, and nothing while a turn runs", () => {
    const events = turns(3);
    expect([...undoableOf(events)]).toEqual(["in_2", "in_3"]);
    events
      .add("input.admitted", { inputId: "in_4", text: "m4", delivery: "queue" }, "turn_4")
      .add("turn.started", { inputId: "in_4" }, "turn_4");
    expect(undoableOf(events).size).toBe(0);
  });

  it("leaves out the first input after the session went on in a new OpenCode session", () => {
    const events = turns(1).add("session.rehydrated", {
      previousUpstreamId: "up_1",
      upstreamId: "up_2",
    });
    events
      .add("input.admitted", { inputId: "in_2", text: "m2", delivery: "queue" }, "turn_2")
      .add("turn.started", { inputId: "in_2" }, "turn_2")
      .add("turn.ended", { outcome: "completed", text: "" }, "turn_2")
      .add("input.admitted", { inputId: "in_3", text: "m3", delivery: "queue" }, "turn_3")
      .add("turn.started", { inputId: "in_3" }, "turn_3")
      .add("turn.ended", { outcome: "completed", text: "" }, "turn_3");
    expect(liveConversationOf("ses_1", events.events).conversation.rehydrations).toHaveLength(1);
    expect([...undoableOf(events)]).toEqual(["in_3"]);
  });
});
