#!/usr/bin/env node
/** `ocb`: the opencode-bridge command line. */
import { ocbProgram } from "./program.js";
import { runCli } from "./run-cli.js";

await runCli(ocbProgram(), process.argv);
