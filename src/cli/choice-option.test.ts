import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { choiceOption } from "./choice-option.js";
import { runCli } from "./run-cli.js";

interface Seen {
  mode?: string | undefined;
  stderr: string;
}

function program(seen: Seen): Command {
  return new Command()
    .exitOverride()
    .configureOutput({ writeErr: (text) => (seen.stderr += text), writeOut: () => {} })
    .addOption(choiceOption("--mode <mode>", "how", ["fast", "slow"]))
    .action((options: { mode?: string }) => {
      seen.mode = options.mode;
    });
}

afterEach(() => {
  process.exitCode = undefined;
});

describe("choiceOption", () => {
  it("passes a listed value through", async () => {
    const seen: Seen = { stderr: "" };
    await runCli(program(seen), ["node", "ocb", "--mode", "slow"]);
    expect(seen).toEqual({ mode: "slow", stderr: "" });
    expect(process.exitCode).toBeUndefined();
  });

  it("refuses another while parsing, naming the flag and the choices, with exit code 2", async () => {
    const seen: Seen = { stderr: "" };
    await runCli(program(seen), ["node", "ocb", "--mode", "medium"]);
    expect(seen.mode).toBeUndefined(); // the action never ran
    expect(seen.stderr).toContain("'medium' is invalid");
    expect(seen.stderr).toContain("--mode must be one of fast, slow");
    expect(process.exitCode).toBe(2);
  });

  it("lists the choices in the help", () => {
    expect(program({ stderr: "" }).helpInformation()).toContain('(choices: "fast", "slow")');
  });
});
