/**
 * Under the box, while its message starts with a command's name: what Enter will do (run that
 * command, not send the text), with the command's description and the arguments its template
 * takes. Drawn as text: a description is the project's.
 */
import type { CommandInfo } from "opencode-bridge/client";
import { commandCall } from "./composer-token.js";

export function CommandNote(props: { text: string; commands: readonly CommandInfo[] | undefined }) {
  const { commands } = props;
  if (commands === undefined) return null;
  const call = commandCall(props.text, new Set(commands.map((command) => command.name)));
  const command = call === undefined ? undefined : commands.find((c) => c.name === call.name);
  if (command === undefined) return null;
  return (
    <p class="command-note muted" data-testid="command-note">
      Runs the command <strong>/{command.name}</strong>
      {command.hints.length === 0 ? null : (
        <span class="suggestion-hint"> {command.hints.join(" ")}</span>
      )}
      {command.description === undefined ? null : <span>: {command.description}</span>}
    </p>
  );
}
