/**
 * A session's controls, on a running sidecar: `ocb undo`, `redo`, `fork`, `continue` and
 * `compact`. Each is one call of the sidecar's API; its refusals (busy: 409, a backend that
 * cannot: 422, an unknown session or input: 404) are the command's error message.
 */
import type { Command } from "commander";
import type { SessionInfo } from "../../client/index.js";
import { addUrlOption, type SidecarOptions, withSidecar } from "../sidecar-client.js";

interface JsonOption extends SidecarOptions {
  json?: boolean;
}

const SESSION_HELP = "the session id (see `ocb sessions`)";
const INPUT_HELP = "the input's id (see `ocb inputs SESSION`)";
const JSON_HELP = "print the session as the sidecar answers it, as JSON";

export function registerSessionControlCommands(program: Command): void {
  addUrlOption(
    program
      .command("undo")
      .description(
        "undo an input: the session goes back to before it, the files it and every later input changed put back",
      )
      .argument("<session>", SESSION_HELP)
      .argument("<inputId>", INPUT_HELP),
  ).action(async (sessionId: string, inputId: string, options: SidecarOptions) => {
    await withSidecar(options, (client) => client.revert(sessionId, inputId));
    console.log(
      `undone: ${sessionId} is back to before ${inputId} (\`ocb redo ${sessionId}\` takes it back)`,
    );
  });

  addUrlOption(
    program
      .command("redo")
      .description("take back the last undo, while no input has followed it")
      .argument("<session>", SESSION_HELP),
  ).action(async (sessionId: string, options: SidecarOptions) => {
    await withSidecar(options, (client) => client.unrevert(sessionId));
    console.log(`redone: ${sessionId} has its undone inputs and files back`);
  });

  addUrlOption(
    program
      .command("fork")
      .description(
        "make a new session from a session's conversation before an input, and print its id",
      )
      .argument("<session>", SESSION_HELP)
      .argument("<inputId>", `${INPUT_HELP}: it and what followed are left out`)
      .option("--json", JSON_HELP),
  ).action(async (sessionId: string, inputId: string, options: JsonOption) => {
    const fork = await withSidecar(options, (client) => client.fork(sessionId, inputId));
    printSession(fork, options, fork.id);
  });

  addUrlOption(
    program
      .command("continue")
      .description(
        "go on with a session whose OpenCode session was lost, in a new one primed with the conversation",
      )
      .argument("<session>", SESSION_HELP)
      .option("--json", JSON_HELP),
  ).action(async (sessionId: string, options: JsonOption) => {
    const session = await withSidecar(options, (client) => client.continueSession(sessionId));
    printSession(session, options, `continued: ${session.id} goes on in a new OpenCode session`);
  });

  addUrlOption(
    program
      .command("compact")
      .description("compact a session's history into a summary (waits until it is done)")
      .argument("<session>", SESSION_HELP),
  ).action(async (sessionId: string, options: SidecarOptions) => {
    await withSidecar(options, (client) => client.compact(sessionId));
    console.log(`compacted: ${sessionId} goes on from a summary of its history`);
  });
}

/** `session` as JSON with --json, else `line`. */
function printSession(session: SessionInfo, options: JsonOption, line: string): void {
  console.log(options.json ? JSON.stringify(session) : line);
}
