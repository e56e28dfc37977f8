/**
 * The files each turn changed, by turn id (the live conversation's `turnFiles`, folded from
 * each turn's `files.changed`): a turn's "Changes" link and an undo's confirmation read them
 * without asking the sidecar.
 */
import type { LiveConversation, Message } from "opencode-bridge/client";

export type TurnChanges = LiveConversation["turnFiles"];

/**
 * The files an undo to before `inputId` puts back: those its turn and every later turn shown
 * changed, each path once (in the order the turns changed them), and how many more there are.
 */
export function filesPutBackBy(
  messages: readonly Message[],
  changes: TurnChanges,
  inputId: string,
): { paths: string[]; moreFiles: number } {
  const from = messages.findIndex(
    (message) => message.role === "user" && message.inputId === inputId,
  );
  if (from === -1) return { paths: [], moreFiles: 0 };
  const turns = new Set<string>();
  for (const message of messages.slice(from)) {
    if (message.turnId !== undefined) turns.add(message.turnId);
  }
  const paths = new Set<string>();
  let moreFiles = 0;
  for (const turnId of turns) {
    const turn = changes[turnId];
    if (turn === undefined) continue;
    for (const file of turn.files) paths.add(file.path);
    moreFiles += turn.moreFiles ?? 0;
  }
  return { paths: [...paths], moreFiles };
}
