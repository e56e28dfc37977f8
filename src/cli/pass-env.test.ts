import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { addPassEnvOption } from "./pass-env.js";

function parse(args: string[]): { passEnv: string[]; error: string } {
  let error = "";
  const command = addPassEnvOption(new Command("x"))
    .exitOverride()
    .configureOutput({ writeErr: (text) => (error += text) });
  try {
    command.parse(args, { from: "user" });
  } catch {
    // commander says what was wrong on writeErr
  }
  return { passEnv: command.opts<{ passEnv: string[] }>().passEnv, error };
}

describe("--pass-env", () => {
  it("collects names and prefixes", () => {
    expect(parse(["--pass-env", "GITHUB_TOKEN", "--pass-env", "MY_TOOL_*"]).passEnv).toEqual([
      "GITHUB_TOKEN",
      "MY_TOOL_*",
    ]);
  });

  it("refuses what is no variable name, and the bridge's own variables, saying why", () => {
    expect(parse(["--pass-env", "A=B"]).error).toMatch(/variable name .* was expected/);
    expect(parse(["--pass-env", "OCB_TOKEN"]).error).toMatch(/OCB_\*\) never reach the agent/);
  });
});
