/**
 * Slash commands (`Bridge.commands`, `Session.runCommand`): OpenCode's list of a location's
 * commands, and a command's prompt, its template with the arguments put in.
 *
 * Verified on 1.18.33: OpenCode's own way to run one, the legacy `POST /session/{id}/command`,
 * runs it in the session's legacy history, which the `/api` surface does not share: the
 * bridge sees no event of it and the model's next `/api` turn does not know it happened. So
 * the bridge expands the template itself, as OpenCode does, and sends the prompt as any input:
 * the command's turn is a normal turn, queued or steered like one.
 */

import { UsageError } from "../errors.js";
import type { OpencodeClient } from "../opencode-client/opencode-client.js";
import type { Command as NativeCommand } from "../opencode-protocol/legacy/location-lists.js";
import { clipText } from "../util/clip-text.js";

/** A command a session can run. */
export interface CommandInfo {
  /** What `Session.runCommand` takes (without the slash). */
  name: string;
  /** From the command's file or config (untrusted text, bounded). */
  description?: string;
  /** The template's argument placeholders (`$ARGUMENTS`, `$1`, `$2`, …): what it takes. */
  hints: string[];
  /** `command` (a file, the config or a built-in), `mcp` (an MCP prompt) or `skill`. */
  source?: string;
  /** Run as a subagent by OpenCode's own runner; the bridge runs it in the session itself. */
  subtask?: boolean;
}

/** Bounds on what a command's entry hands on (its text comes from files and servers). */
const MAX_NAME_CHARS = 200;
const MAX_DESCRIPTION_CHARS = 1_000;
const MAX_HINTS = 20;
/** More than any project defines; a list past it is cut, not refused. */
const MAX_COMMANDS = 1_000;
/** Larger than any template OpenCode ships (`init` is about 4 KB). */
export const MAX_COMMAND_PROMPT_CHARS = 100_000;

/** The entry of a native command, bounded. */
export function commandInfo(command: NativeCommand): CommandInfo {
  const description = command.description?.trim();
  return {
    name: clipText(command.name, MAX_NAME_CHARS),
    ...(description ? { description: clipText(description, MAX_DESCRIPTION_CHARS) } : {}),
    hints: (command.hints ?? []).slice(0, MAX_HINTS).map((hint) => clipText(hint, 40)),
    ...(command.source === undefined ? {} : { source: clipText(command.source, 40) }),
    ...(command.subtask === true ? { subtask: true } : {}),
  };
}

/** The commands of `directory`, as OpenCode lists them. */
export async function listCommands(
  client: OpencodeClient,
  directory: string,
  signal?: AbortSignal,
): Promise<CommandInfo[]> {
  const commands = await client.command.list({ directory, ...(signal ? { signal } : {}) });
  return commands.slice(0, MAX_COMMANDS).map(commandInfo);
}

/**
 * The prompt of command `name` of `directory` with `args`: a UsageError naming the commands
 * for a name that is not one of them, or for a template the bridge cannot expand as OpenCode
 * would (one that runs a shell command).
 */
export async function commandPrompt(
  client: OpencodeClient,
  directory: string,
  name: string,
  args: string,
  signal?: AbortSignal,
): Promise<string> {
  const commands = await client.command.list({ directory, ...(signal ? { signal } : {}) });
  const command = commands.find((entry) => entry.name === name);
  if (command === undefined) {
    const names = commands.map((entry) => entry.name).join(", ");
    throw new UsageError(
      `unknown command ${JSON.stringify(name)}: the commands here are ${names || "none"}`,
    );
  }
  return expandCommand(command.template, args, name);
}

/** `` !`cmd` ``: OpenCode runs it and puts its output in the prompt. */
const SHELL_PATTERN = /!`[^`]+`/;
/** An argument: a quoted string (quotes dropped) or a run of other characters. */
const ARGUMENT_PATTERN = /\[Image\s+\d+\]|"[^"]*"|'[^']*'|[^\s"']+/gi;
const POSITION_PATTERN = /\$(\d+)/g;

/**
 * A template with its arguments, as OpenCode 1.18.33 puts them in: `$1`, `$2`, … the
 * arguments in order (the last placeholder takes the rest of them, a missing one is empty),
 * `$ARGUMENTS` all of them as given; with neither, arguments follow the template after a blank
 * line. `@file` references are left to the model, which reads files with its tools.
 */
export function expandCommand(template: string, args: string, name = "the command"): string {
  if (SHELL_PATTERN.test(template)) {
    throw new UsageError(
      `command ${JSON.stringify(name)} runs a shell command in its template (!\`…\`), which the bridge does not run for it`,
    );
  }
  const values = (args.match(ARGUMENT_PATTERN) ?? []).map((arg) => arg.replace(/^["']|["']$/g, ""));
  const positions = [...template.matchAll(POSITION_PATTERN)].map((match) => Number(match[1]));
  const last = Math.max(0, ...positions);
  const withPositions = template.replace(POSITION_PATTERN, (_, digits: string) => {
    const position = Number(digits);
    if (position - 1 >= values.length) return "";
    if (position === last) return values.slice(position - 1).join(" ");
    return values[position - 1] ?? "";
  });
  const usesAll = template.includes("$ARGUMENTS");
  // A function, so that `$&` and the like in the arguments stay as they are.
  let prompt = withPositions.replaceAll("$ARGUMENTS", () => args);
  if (positions.length === 0 && !usesAll && args.trim() !== "") prompt = `${prompt}\n\n${args}`;
  prompt = prompt.trim();
  if (prompt.length > MAX_COMMAND_PROMPT_CHARS) {
    throw new UsageError(
      `command ${JSON.stringify(name)} expands to ${prompt.length} characters, more than the ${MAX_COMMAND_PROMPT_CHARS} a command may send`,
    );
  }
  if (prompt === "") throw new UsageError(`command ${JSON.stringify(name)} expands to nothing`);
  return prompt;
}
