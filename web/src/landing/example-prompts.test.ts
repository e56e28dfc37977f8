import { describe, expect, it } from "vitest";
import { parseDirectives } from "../../../src/testing/scripted-model/directives.js";
import { DEMO_EXAMPLES, examplesFor, REAL_EXAMPLES } from "./example-prompts.js";

describe("the landing page's example prompts", () => {
  it("on the demo model, each is a script the scripted model takes", () => {
    for (const example of DEMO_EXAMPLES) {
      expect(() => parseDirectives(example.prompt), example.label).not.toThrow();
    }
    expect(parseDirectives(DEMO_EXAMPLES[1]?.prompt ?? "").tools).toHaveLength(1);
  });

  it("are the demo's for the demo catalog, ordinary ones otherwise", () => {
    const demo = { models: [], default: { providerID: "demo", modelID: "demo-1" } };
    const real = { models: [], default: { providerID: "anthropic", modelID: "claude" } };
    expect(examplesFor(demo)).toBe(DEMO_EXAMPLES);
    expect(examplesFor(real)).toBe(REAL_EXAMPLES);
    expect(examplesFor(undefined)).toBe(REAL_EXAMPLES);
  });
});
