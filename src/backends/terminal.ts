/**
 * A terminal in a session's directory (`Session.openTerminal`, capability `terminal`): a shell
 * on the OpenCode server's machine, its output read as text, its input typed into it. It lives
 * until its shell exits or it is closed; the session's close closes it, so no shell outlives
 * the session that opened it.
 */

/** A terminal's size in character cells. */
export interface TerminalSize {
  cols: number;
  rows: number;
}

/** How a terminal ended. */
export interface TerminalEnd {
  /**
   * `exited`: its shell ended; `closed`: `close()` was called (the session's close included);
   * `overflow`: its output backed up past the bound (nobody read it); `failed`: the
   * connection to it broke.
   */
  reason: "exited" | "closed" | "overflow" | "failed";
  /** Says what happened, for a person. */
  message: string;
}

export interface Terminal {
  /** OpenCode's id of the PTY. */
  readonly id: string;
  /**
   * Its output as it comes, for one reader; ends when the terminal ends. Output not read is
   * held up to a bound (1 MiB), past which the terminal ends (`overflow`).
   */
  output(signal?: AbortSignal): AsyncIterable<string>;
  /** Types `data` into the shell (dropped once the terminal has ended). */
  write(data: string): void;
  /** Sets its size (what programs such as `stty size` and editors see). */
  resize(size: TerminalSize, options?: { signal?: AbortSignal }): Promise<void>;
  /** Ends the shell and removes the PTY upstream; resolves once it is gone (or unreachable). */
  close(): Promise<void>;
  /** Resolves once, when the terminal ends, saying how. */
  readonly ended: Promise<TerminalEnd>;
}

/** Checks a size given by a caller: whole numbers of cells, 1 to 1000. */
export function isTerminalSize(size: TerminalSize): boolean {
  return [size.cols, size.rows].every((n) => Number.isInteger(n) && n >= 1 && n <= 1000);
}
