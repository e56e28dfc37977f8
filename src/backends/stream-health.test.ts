import { describe, expect, it } from "vitest";
import type { BackendConnection } from "./backend.js";
import { StreamHealth } from "./stream-health.js";

function health() {
  const reports: BackendConnection[] = [];
  const tracker = new StreamHealth<"durable" | "live">("live", (report) => reports.push(report));
  return { tracker, reports };
}

const failed = (attempt: number) =>
  ({ state: "reconnecting", attempt, reason: "ECONNREFUSED", retryInMs: 250 }) as const;

describe("StreamHealth", () => {
  it("says nothing while every stream connects as it should", () => {
    const { tracker, reports } = health();
    tracker.change("live", { state: "connected" });
    tracker.change("durable", { state: "connected" });
    expect(reports).toEqual([]);
  });

  it("reports each failed attempt with the highest count, and one connected when all are back", () => {
    const { tracker, reports } = health();
    tracker.change("durable", failed(1));
    tracker.change("live", failed(1));
    tracker.change("durable", failed(2));
    tracker.change("live", failed(2));
    tracker.change("live", failed(3));
    tracker.change("durable", { state: "connected" });
    tracker.change("live", { state: "connected" });
    expect(reports).toEqual([
      { state: "reconnecting", attempt: 1, reason: "ECONNREFUSED" },
      { state: "reconnecting", attempt: 1, reason: "ECONNREFUSED" },
      { state: "reconnecting", attempt: 2, reason: "ECONNREFUSED" },
      { state: "reconnecting", attempt: 2, reason: "ECONNREFUSED" },
      { state: "reconnecting", attempt: 3, reason: "ECONNREFUSED" },
      { state: "connected" },
    ]);
  });

  it("takes the live stream's connection as proof for the durable one (an idle one never says)", () => {
    const { tracker, reports } = health();
    tracker.change("durable", failed(1));
    tracker.change("live", failed(1));
    tracker.change("live", { state: "connected" });
    expect(reports.at(-1)).toEqual({ state: "connected" });
  });

  it("stays reconnecting while the durable stream alone fails and the live one is fine", () => {
    const { tracker, reports } = health();
    tracker.change("durable", failed(1));
    tracker.change("durable", failed(2));
    expect(reports.at(-1)).toMatchObject({ state: "reconnecting", attempt: 2 });
    tracker.change("durable", { state: "connected" });
    expect(reports.at(-1)).toEqual({ state: "connected" });
  });
});
