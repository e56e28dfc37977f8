/**
 * What a managed server printed, kept as the last N lines so that a failure can show them.
 * Every line passes through the redactor before it is stored or forwarded anywhere: the
 * server password must never reach a log, an error message or a test snapshot.
 */

/** Stands in for a secret wherever it appeared. */
export const REDACTED = "[redacted]";

/** Lines kept by default; enough to show a stack trace and what led to it. */
export const DEFAULT_LOG_TAIL_LINES = 200;

/** A line longer than this is cut into pieces, so a runaway line cannot grow memory. */
const MAX_LINE_LENGTH = 16_384;

// CSI sequences (colours, cursor moves): OpenCode colours its own error output.
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes begin with ESC.
const ANSI_ESCAPE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/** Replaces every known secret (and the encodings it is likely to be printed in) by `[redacted]`. */
export class SecretRedactor {
  private forms: string[] = [];

  constructor(secrets: Iterable<SecretSpec> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Adds a secret; with `username`, its HTTP Basic `Authorization` encoding is covered too. */
  add(secret: SecretSpec): void {
    const value = typeof secret === "string" ? secret : secret.value;
    if (value.length === 0) return;
    const forms = new Set([value, encodeURIComponent(value)]);
    if (typeof secret !== "string" && secret.username !== undefined) {
      forms.add(Buffer.from(`${secret.username}:${value}`).toString("base64"));
    }
    // Longest first, so a form that contains a shorter one is replaced whole.
    this.forms = [...new Set([...this.forms, ...forms])].sort((a, b) => b.length - a.length);
  }

  /** Every string that is replaced, longest first. */
  get patterns(): readonly string[] {
    return this.forms;
  }

  redact(text: string): string {
    let result = text;
    for (const form of this.forms) result = result.split(form).join(REDACTED);
    return result;
  }
}

/** A secret, optionally with the user name it is sent with in Basic auth. */
export type SecretSpec = string | { value: string; username?: string };

/**
 * Turns chunks of one output stream into redacted lines. A line that grows past the
 * maximum is emitted in pieces, cut where no secret straddles the cut.
 */
export class LineSplitter {
  private pending = "";

  constructor(
    private readonly redactor: SecretRedactor,
    private readonly onLine: (line: string) => void,
    private readonly maxLineLength = MAX_LINE_LENGTH,
  ) {}

  push(chunk: string): void {
    this.pending += chunk;
    let newline = this.pending.indexOf("\n");
    while (newline !== -1) {
      this.emit(this.pending.slice(0, newline));
      this.pending = this.pending.slice(newline + 1);
      newline = this.pending.indexOf("\n");
    }
    while (this.pending.length > this.maxLineLength) {
      const cut = safeCut(this.pending, this.redactor.patterns, this.maxLineLength);
      if (cut <= 0) break;
      this.emit(this.pending.slice(0, cut));
      this.pending = this.pending.slice(cut);
    }
  }

  /** Emits a last line that had no newline. */
  end(): void {
    if (this.pending.length > 0) this.emit(this.pending);
    this.pending = "";
  }

  private emit(raw: string): void {
    const line = this.redactor.redact(
      this.redactor.redact(raw.endsWith("\r") ? raw.slice(0, -1) : raw).replace(ANSI_ESCAPE, ""),
    );
    this.onLine(line);
  }
}

/**
 * Where to cut `text` at or before `desired` so that no occurrence of a pattern spans the
 * cut; an occurrence cut in two would escape redaction in both halves.
 */
function safeCut(text: string, patterns: readonly string[], desired: number): number {
  const longest = patterns[0]?.length ?? 0;
  // Keep enough unread text that every occurrence starting before the cut is complete.
  let cut = Math.min(desired, text.length - Math.max(0, longest - 1));
  let moved = true;
  while (moved && cut > 0) {
    moved = false;
    for (const pattern of patterns) {
      const start = text.indexOf(pattern, Math.max(0, cut - pattern.length + 1));
      if (start !== -1 && start < cut) {
        cut = start;
        moved = true;
      }
    }
  }
  return cut;
}

/** A ring buffer of the last lines a process printed. */
export class LogTail {
  private readonly lines: string[] = [];

  constructor(private readonly capacity = DEFAULT_LOG_TAIL_LINES) {}

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  /** A copy of the kept lines, oldest first. */
  snapshot(): string[] {
    return [...this.lines];
  }
}
