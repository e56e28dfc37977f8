/** Runs a commander program and turns library errors into a message and an exit code. */
import { type Command, CommanderError } from "commander";
import { OpencodeBridgeError, ServerStartError, UsageError } from "../errors.js";
import { terminalText } from "./terminal-text.js";

/**
 * Parses and runs; a known error prints its message (no stack) and exits 1 (2 for usage).
 * The program is expected to have `exitOverride()`: commander then throws instead of exiting.
 */
export async function runCli(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message already. A value outside an option's choices is
      // a usage error like the ones the commands raise themselves; other codes are as before.
      process.exitCode = error.code === "commander.invalidArgument" ? 2 : error.exitCode;
      return;
    }
    process.exitCode = error instanceof UsageError ? 2 : 1;
    if (error instanceof ServerStartError || error instanceof OpencodeBridgeError) {
      // A message may carry what a server or the model said: it must not drive the terminal.
      console.error(`ocb: ${terminalText(error.message)}`);
      return;
    }
    console.error("ocb: unexpected error (please report it):", error);
  }
}
