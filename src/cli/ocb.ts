#!/usr/bin/env node
/** `ocb`: the opencode-bridge command line. */
import { Command } from "commander";
import { registerRunCommand } from "./commands/run.js";
import { registerServeCommand } from "./commands/serve.js";
import { runCli } from "./run-cli.js";

const program = new Command()
  .name("ocb")
  .description("opencode-bridge: drive the OpenCode coding agent from a terminal")
  .showHelpAfterError();

registerRunCommand(program);
registerServeCommand(program);

await runCli(program, process.argv);
