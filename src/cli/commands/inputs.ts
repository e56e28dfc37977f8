/** `ocb inputs SESSION`: a session's inputs on a running sidecar, with the ids the controls take. */
import type { Command } from "commander";
import { inputRows, inputTable } from "../input-list.js";
import { addUrlOption, type SidecarOptions, withSidecar } from "../sidecar-client.js";

interface InputsOptions extends SidecarOptions {
  json?: boolean;
}

export function registerInputsCommand(program: Command): void {
  addUrlOption(
    program
      .command("inputs")
      .description(
        "list a session's inputs with their ids (for `ocb undo` and `ocb fork`) and turn ids (for `ocb changes --turn`)",
      )
      .argument("<session>", "the session id (see `ocb sessions`)")
      .option("--json", "print one JSON object per input and line"),
  ).action(async (sessionId: string, options: InputsOptions) => {
    const conversation = await withSidecar(options, (client) => client.conversation(sessionId));
    const rows = inputRows(conversation);
    if (options.json) {
      for (const row of rows) console.log(JSON.stringify(row));
    } else if (rows.length === 0) {
      console.log(`no inputs in ${sessionId} yet`);
    } else {
      console.log(inputTable(rows).join("\n"));
    }
  });
}
