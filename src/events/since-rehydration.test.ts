import { describe, expect, it } from "vitest";
import { NumberedEvents } from "../../test/support/numbered-events.js";
import { sinceRehydration } from "./since-rehydration.js";

describe("sinceRehydration", () => {
  it("is every event of a session never continued, and those after its latest continuation", () => {
    const out = new NumberedEvents("ses_x").add("turn.started", {}, "turn_1");
    expect(sinceRehydration(out.events)).toEqual(out.events);
    const lost = { previousUpstreamId: "ses_x", upstreamId: "ses_y" };
    out.add("session.rehydrated", lost).add("turn.started", {}, "turn_2");
    out.add("session.rehydrated", { previousUpstreamId: "ses_y", upstreamId: "ses_z" });
    expect(sinceRehydration(out.events)).toEqual([]);
    out.add("turn.started", {}, "turn_3");
    expect(sinceRehydration(out.events).map((event) => event.turnId)).toEqual(["turn_3"]);
  });

  it("leaves out an imported session's history, which came from OpenCode's legacy messages", () => {
    const out = new NumberedEvents("ses_x").add("turn.started", {}, "turn_1");
    out.add("session.imported", { upstreamId: "ses_x", messages: 2 });
    out.add("turn.started", {}, "turn_2");
    expect(sinceRehydration(out.events).map((event) => event.turnId)).toEqual(["turn_2"]);
  });
});
