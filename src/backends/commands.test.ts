import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { commandInfo, expandCommand } from "./commands.js";

describe("expandCommand", () => {
  it("puts all the arguments in for $ARGUMENTS, as given", () => {
    expect(expandCommand("Greet $ARGUMENTS now", 'the "whole" world')).toBe(
      'Greet the "whole" world now',
    );
  });

  it("puts positional arguments in order; the last placeholder takes the rest, a missing one is empty", () => {
    expect(expandCommand("from $1 to $2.", "a b c d")).toBe("from a to b c d.");
    expect(expandCommand("from $1 to $2.", "'one arg'")).toBe("from one arg to .");
  });

  it("appends the arguments after a blank line to a template without placeholders", () => {
    expect(expandCommand("Review the code.", "src/a.ts")).toBe("Review the code.\n\nsrc/a.ts");
    expect(expandCommand("Review the code.", "  ")).toBe("Review the code.");
  });

  it("keeps replacement patterns in the arguments as text", () => {
    expect(expandCommand("say $ARGUMENTS", "$& and $1")).toBe("say $& and $1");
  });

  it("refuses a template that runs a shell command, and one that expands to nothing", () => {
    expect(() => expandCommand("Commits: !`git log`", "", "log")).toThrow(UsageError);
    expect(() => expandCommand("Commits: !`git log`", "", "log")).toThrow(/shell command/);
    expect(() => expandCommand("$1", "", "empty")).toThrow(/expands to nothing/);
  });
});

describe("commandInfo", () => {
  it("keeps name, description, hints, source and subtask, bounded", () => {
    expect(
      commandInfo({
        name: "greet",
        description: " Greets ",
        template: "x",
        source: "command",
        agent: null,
        subtask: null,
        hints: ["$ARGUMENTS"],
      }),
    ).toEqual({ name: "greet", description: "Greets", hints: ["$ARGUMENTS"], source: "command" });
    const long = commandInfo({ name: "n", description: "d".repeat(5_000), template: "" });
    expect(long.description).toHaveLength(1_000);
    expect(long.hints).toEqual([]);
    expect(commandInfo({ name: "r", template: "", subtask: true }).subtask).toBe(true);
  });
});
