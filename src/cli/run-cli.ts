/** Runs a commander program and turns library errors into a message and an exit code. */
import type { Command } from "commander";
import { OpencodeBridgeError, ServerStartError, UsageError } from "../errors.js";

/** Parses and runs; a known error prints its message (no stack) and exits 1 (2 for usage). */
export async function runCli(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = error instanceof UsageError ? 2 : 1;
    if (error instanceof ServerStartError || error instanceof OpencodeBridgeError) {
      console.error(`ocb: ${error.message}`);
      return;
    }
    console.error("ocb: unexpected error (please report it):", error);
  }
}
