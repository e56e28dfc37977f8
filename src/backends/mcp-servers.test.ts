import { describe, expect, it } from "vitest";
import { mcpServers } from "./mcp-servers.js";

describe("mcpServers", () => {
  it("lists each server by name with its state, and a failure's error bounded", () => {
    expect(
      mcpServers({
        zeta: { status: "connected" },
        alpha: { status: "failed", error: "x".repeat(3_000) },
      }),
    ).toEqual([
      { name: "alpha", status: "failed", error: `${"x".repeat(999)}…` },
      { name: "zeta", status: "connected" },
    ]);
    expect(mcpServers({})).toEqual([]);
  });
});
