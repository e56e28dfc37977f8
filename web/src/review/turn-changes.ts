/**
 * The files each turn changed, by turn id, folded from the session's `files.changed` events
 * (one at each turn's end that changed any; the live conversation keeps only the latest). A
 * turn's "Changes" link and an undo's confirmation read them without asking the sidecar.
 */
import type { CanonicalEvent, FileChange, Message } from "opencode-bridge/client";

export interface TurnFiles {
  files: readonly FileChange[];
  /** Changed files beyond those named. */
  moreFiles?: number;
}

export type TurnChanges = Readonly<Record<string, TurnFiles>>;

/** `changes` with `event` folded in (the same object when the event says nothing of files). */
export function foldTurnChanges(changes: TurnChanges, event: CanonicalEvent): TurnChanges {
  if (event.type !== "files.changed" || event.turnId === undefined) return changes;
  const { files, moreFiles } = event.data;
  return { ...changes, [event.turnId]: moreFiles === undefined ? { files } : { files, moreFiles } };
}

/** `foldTurnChanges` over `events`, in order. */
export function turnChangesOf(events: Iterable<CanonicalEvent>): TurnChanges {
  let changes: TurnChanges = {};
  for (const event of events) changes = foldTurnChanges(changes, event);
  return changes;
}

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
