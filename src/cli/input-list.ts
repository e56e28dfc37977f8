/**
 * A session's inputs as `ocb inputs` lists them: the ids `ocb undo` and `ocb fork` take, the
 * turn ids `ocb changes --turn` takes, and the first line of each input's text (untrusted:
 * made safe to print). Those an undo set aside come last, marked. A pure function of the
 * conversation the sidecar answers.
 */
import type { ConversationView } from "../client/index.js";
import { terminalLine } from "./terminal-text.js";
import { alignedColumns } from "./text-table.js";

/** One input of the session. */
export interface InputRow {
  inputId: string;
  turnId?: string;
  text: string;
  /** Set aside by an undo; `ocb redo` brings it back. */
  undone?: true;
}

type Message = ConversationView["messages"][number];

/** The session's inputs in order, then those an undo set aside. */
export function inputRows(conversation: ConversationView): InputRow[] {
  const rows = (messages: readonly Message[], undone: boolean): InputRow[] =>
    messages.flatMap((message) =>
      message.role === "user"
        ? [
            {
              inputId: message.inputId,
              ...(message.turnId === undefined ? {} : { turnId: message.turnId }),
              text: message.text,
              ...(undone ? { undone: true as const } : {}),
            },
          ]
        : [],
    );
  return [
    ...rows(conversation.messages, false),
    ...rows(conversation.undone?.messages ?? [], true),
  ];
}

/** Aligned columns: input, turn, and the text's first line (cut at 60 characters). */
export function inputTable(rows: readonly InputRow[]): string[] {
  return alignedColumns([
    ["INPUT", "TURN", "TEXT"],
    ...rows.map((row) => [
      row.inputId,
      row.turnId ?? "-",
      `${row.undone ? "(undone) " : ""}${firstLine(row.text)}`,
    ]),
  ]);
}

function firstLine(text: string): string {
  const line = terminalLine(text.split("\n", 1)[0] ?? "").trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
