/**
 * `ocb serve`'s options and docs/sidecar.md's table of them agree, both ways: an option
 * documented but never registered (`--allow-host` was) fails here, as does one left out of the
 * table.
 */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { registerServeCommand } from "./commands/serve.js";

function registeredFlags(): string[] {
  const program = new Command();
  registerServeCommand(program);
  const serve = program.commands.find((command) => command.name() === "serve");
  return (serve?.options ?? []).flatMap((option) =>
    option.long === undefined ? [] : [option.long],
  );
}

function documentedFlags(): string[] {
  const doc = readFileSync(new URL("../../docs/sidecar.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Running it"), doc.indexOf("## Security"));
  return [...section.matchAll(/^\| `(--[a-z-]+)/gm)].map((match) => match[1] ?? "");
}

describe("ocb serve's options", () => {
  it("are the ones docs/sidecar.md lists", () => {
    expect(registeredFlags().sort()).toEqual(documentedFlags().sort());
    expect(registeredFlags()).toEqual(expect.arrayContaining(["--no-web", "--allow-host"]));
  });
});
