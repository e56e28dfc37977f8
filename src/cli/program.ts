/** The `ocb` program with its commands, built anew per call (a test runs it in-process). */
import { Command } from "commander";
import { registerChangesCommand } from "./commands/changes.js";
import { registerExportCommand } from "./commands/export.js";
import { registerImportCommand } from "./commands/import.js";
import { registerInputsCommand } from "./commands/inputs.js";
import { registerOpencodeSessionCommands } from "./commands/opencode-sessions.js";
import { registerRelayCommand } from "./commands/relay.js";
import { registerRemoteCommands } from "./commands/remote.js";
import { registerRunCommand } from "./commands/run.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerSessionControlCommands } from "./commands/session-controls.js";
import { registerSessionsCommand } from "./commands/sessions.js";
import { registerShowCommand } from "./commands/show.js";
import { registerStoreCommand } from "./commands/store.js";

export function ocbProgram(): Command {
  const program = new Command()
    .name("ocb")
    .description("opencode-bridge: drive the OpenCode coding agent from a terminal")
    .showHelpAfterError()
    .exitOverride(); // runCli sets the exit code (2 for a bad option value, as for usage errors)
  registerRunCommand(program);
  registerServeCommand(program);
  registerSessionsCommand(program);
  registerShowCommand(program);
  registerExportCommand(program);
  registerImportCommand(program);
  registerStoreCommand(program);
  registerRelayCommand(program);
  program.commandsGroup(
    "Sessions on a running sidecar (the `ocb serve` of this machine, or --url with OCB_TOKEN):",
  );
  registerInputsCommand(program);
  registerChangesCommand(program);
  registerSessionControlCommands(program);
  registerOpencodeSessionCommands(program);
  program.commandsGroup("Devices that reach the sidecar through a relay (ocb serve --relay):");
  registerRemoteCommands(program);
  return program;
}
