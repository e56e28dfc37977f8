/**
 * `--pass-env NAME` (repeatable): a variable of the caller's environment that the managed
 * OpenCode server, and every tool it runs, also gets besides the allow-list
 * (src/server/passed-env.ts). Names are checked here, so that a typo or an attempt to pass the
 * bridge's own secrets is refused before anything starts.
 */
import { type Command, InvalidArgumentError } from "commander";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

export function addPassEnvOption(command: Command): Command {
  return command.option(
    "--pass-env <name>",
    "a variable of this environment the OpenCode server and its tools also get (repeatable; " +
      "NAME_* for a prefix); besides it they get only the system basics, locale, proxies and " +
      "provider keys by their usual names (*_API_KEY, AWS_*, …), never OCB_*",
    (value: string, previous: string[]) => [...previous, checkPassEnvName(value)],
    [] as string[],
  );
}

function checkPassEnvName(name: string): string {
  if (!NAME.test(name)) {
    throw new InvalidArgumentError(
      "a variable name (letters, digits, _; a trailing * for a prefix) was expected.",
    );
  }
  if (name.startsWith("OCB_")) {
    throw new InvalidArgumentError("the bridge's own variables (OCB_*) never reach the agent.");
  }
  return name;
}
