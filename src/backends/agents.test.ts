import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { checkAgentName, KnownAgents, pickableAgents } from "./agents.js";

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

describe("KnownAgents", () => {
  it("lists the agents for a name it does not know, and not again for a known one until 30 s passed", async () => {
    let now = 0;
    const known = new KnownAgents(() => now);
    let fetches = 0;
    const fetch = async () => {
      fetches++;
      return [{ name: "build" }, { name: "plan" }];
    };
    await known.check("plan", fetch);
    await known.check("build", fetch);
    expect(fetches).toBe(1);
    now = 30_000;
    await known.check("plan", fetch);
    expect(fetches).toBe(2);
  });

  it("always checks an unknown name against a fresh list, and refuses it naming the agents", async () => {
    const known = new KnownAgents(() => 0);
    let agents = [{ name: "build" }];
    let fetches = 0;
    const fetch = async () => {
      fetches++;
      return agents;
    };
    await known.check("build", fetch);
    await expect(known.check("review", fetch)).rejects.toThrow(/unknown agent "review".*build/);
    agents = [{ name: "build" }, { name: "review" }];
    await known.check("review", fetch); // newly configured: found on the fresh list
    expect(fetches).toBe(3);
  });
});
