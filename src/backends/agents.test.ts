import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { checkAgentName, pickableAgents } from "./agents.js";

// The shape of 1.18.33's `GET /api/agent` entries (trimmed: permissions, request, ...).
const NATIVE = [
  { id: "build", description: "The default agent.", mode: "primary", hidden: false },
  { id: "plan", mode: "primary", hidden: false },
  { id: "general", description: "General-purpose subagent.", mode: "subagent", hidden: false },
  { id: "title", mode: "primary", hidden: true },
  { id: "mine", description: "Configured for both.", mode: "all", hidden: false },
];

describe("pickableAgents", () => {
  it("keeps primary and `all` agents that are not hidden, with their descriptions", () => {
    expect(pickableAgents(NATIVE)).toEqual([
      { name: "build", description: "The default agent." },
      { name: "plan" },
      { name: "mine", description: "Configured for both." },
    ]);
  });
});

describe("checkAgentName", () => {
  const agents = pickableAgents(NATIVE);

  it("takes a listed name", () => {
    expect(() => checkAgentName("plan", agents)).not.toThrow();
  });

  it("refuses another with a UsageError naming the agents there are", () => {
    for (const name of ["nope", "general", "title"]) {
      expect(() => checkAgentName(name, agents)).toThrow(UsageError);
      expect(() => checkAgentName(name, agents)).toThrow(
        `unknown agent "${name}": the agents a session can switch to are build, plan, mine`,
      );
    }
  });
});
