/**
 * Options whose value is one of a fixed set. Commander checks the value while it parses (and
 * lists the choices in `--help`); the message names the flag and every choice, as the rest of
 * the CLI's usage errors do, and `runCli` exits 2 for it like for any other usage error.
 */
import { InvalidArgumentError, Option } from "commander";

/** `new Option(flags, description).choices(choices)`, with a message that names the flag. */
export function choiceOption(
  flags: string,
  description: string,
  choices: readonly string[],
): Option {
  const option = new Option(flags, description).choices(choices);
  const allowed = option.parseArg;
  if (allowed === undefined) return option;
  const flag = option.long ?? flags;
  return option.argParser((value: string, previous: unknown) => {
    try {
      return allowed(value, previous);
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      throw new InvalidArgumentError(`${flag} must be one of ${choices.join(", ")}.`);
    }
  });
}
