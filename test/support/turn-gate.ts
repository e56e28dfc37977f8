/**
 * A turn held open until the test opens its gate: a `bash` tool call that waits for a file in
 * the session's directory (60 s at most, then fails). For what must happen while a turn runs
 * — a steer, a compact refused, a queued input still pending — without betting on how long a
 * paced reply lasts on a loaded machine: the turn cannot end before `open()`.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface TurnGate {
  /** The directive to put first in the turn's prompt (the tool runs before any reply). */
  readonly directive: string;
  /** Lets the tool end, and the turn go on. */
  open(): void;
}

/** `directory`: the session's, where the tool runs. */
export function turnGate(directory: string): TurnGate {
  const name = `ocb-gate-${randomUUID()}`;
  const command = `for i in $(seq 600); do [ -e ${name} ] && exit 0; sleep 0.1; done; exit 1`;
  return {
    directive: `[[tool bash ${JSON.stringify({ command })}]]`,
    open: () => writeFileSync(join(directory, name), ""),
  };
}
