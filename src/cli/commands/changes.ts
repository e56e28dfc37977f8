/** `ocb changes SESSION`: what a session (or one of its turns) changed, with diffs, from a sidecar. */
import type { Command } from "commander";
import { wantsColor } from "../ansi.js";
import { changeListText } from "../change-list-text.js";
import { addUrlOption, type SidecarOptions, withSidecar } from "../sidecar-client.js";

interface ChangesOptions extends SidecarOptions {
  turn?: string;
  stat?: boolean;
  json?: boolean;
}

export function registerChangesCommand(program: Command): void {
  const command = program
    .command("changes")
    .description(
      "print the files a session's turns changed (`status +added -deleted path`), each with its diff",
    )
    .argument("<session>", "the session id (see `ocb sessions`)")
    .option("--turn <turnId>", "one turn's changes only (turn ids: `ocb inputs SESSION`)")
    .option("--stat", "the list of files only, no diffs")
    .option("--json", "print the sidecar's answer as JSON: files with their counts and patch");
  addUrlOption(command).action(async (sessionId: string, options: ChangesOptions) => {
    await withSidecar(options, async (client) => {
      const changes = await client.changes(sessionId, {
        ...(options.turn === undefined ? {} : { turnId: options.turn }),
      });
      if (options.json) {
        console.log(JSON.stringify(changes));
        return;
      }
      const text = changeListText(changes, {
        stat: options.stat === true,
        color: wantsColor(process.stdout),
      });
      process.stdout.write(text);
    });
  });
}
