/**
 * `ocb opencode-sessions` and `ocb opencode-import ID`: the user's own OpenCode sessions (made
 * by `opencode run`, the TUI, another client) that a running sidecar can see but does not
 * keep, and taking one of them into the sidecar with its history. Not `ocb import`, which adds
 * a transcript file to the store.
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import type { OpencodeSession } from "../../client/index.js";
import { addUrlOption, type SidecarOptions, withSidecar } from "../sidecar-client.js";
import { terminalLine } from "../terminal-text.js";
import { alignedColumns, titleCell } from "../text-table.js";

interface DirectoryOptions extends SidecarOptions {
  directory?: string;
  json?: boolean;
}

export function registerOpencodeSessionCommands(program: Command): void {
  addUrlOption(
    program
      .command("opencode-sessions")
      .description(
        "list your own OpenCode sessions that the running sidecar can import (`ocb opencode-import`), most recent first",
      )
      .option(
        "--directory <directory>",
        "those made in this directory or under it (default: every directory the sidecar allows)",
      )
      .option("--json", "print one JSON object per session and line"),
  ).action(async (options: DirectoryOptions) => {
    const sessions = await withSidecar(options, (client) =>
      client.opencodeSessions(directoryQuery(options.directory)),
    );
    if (options.json) {
      for (const session of sessions) console.log(JSON.stringify(session));
    } else if (sessions.length === 0) {
      console.log("no OpenCode sessions to import");
    } else {
      console.log(opencodeSessionTable(sessions).join("\n"));
    }
  });

  addUrlOption(
    program
      .command("opencode-import")
      .description(
        "take one of your OpenCode sessions (see `ocb opencode-sessions`) into the running sidecar with its history, and print its id",
      )
      .argument("<opencodeSessionId>", "OpenCode's id of the session (`ses_…`)")
      .option(
        "--directory <directory>",
        "the directory OpenCode is asked in (default: the sidecar's; the one it was listed under)",
      )
      .option("--json", "print the session as the sidecar answers it, as JSON"),
  ).action(async (upstreamId: string, options: DirectoryOptions) => {
    const session = await withSidecar(options, (client) =>
      client.importSession(upstreamId, directoryQuery(options.directory)),
    );
    console.log(options.json ? JSON.stringify(session) : session.id);
  });
}

/** Aligned columns, most recent first as the sidecar lists them; titles are untrusted. */
export function opencodeSessionTable(sessions: readonly OpencodeSession[]): string[] {
  return alignedColumns([
    ["ID", "UPDATED", "TITLE", "DIRECTORY"],
    ...sessions.map((session) => [
      terminalLine(session.id),
      new Date(session.updatedAt).toISOString(),
      titleCell(session.title),
      terminalLine(session.directory),
    ]),
  ]);
}

/** A directory as the shell means it, relative to the working directory. */
function directoryQuery(directory: string | undefined): { directory?: string } {
  return directory === undefined ? {} : { directory: resolve(directory) };
}
