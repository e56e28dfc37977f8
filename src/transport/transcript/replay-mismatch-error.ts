/** A replay that does not go as recorded. */
import { OpencodeBridgeError } from "../../errors.js";

/** The client did something other than what the transcript recorded at `line`. */
export class ReplayMismatchError extends OpencodeBridgeError {
  /** 1-based line of the transcript entry that was expected. */
  readonly line: number;
  /** That entry's label. */
  readonly label: string;
  /** What the transcript recorded (a frame), or `undefined` at the end. */
  readonly expected: unknown;
  /** What the client did (an operation call), or `undefined` when it did nothing. */
  readonly actual: unknown;

  constructor(fields: {
    line: number;
    label: string;
    expected: unknown;
    actual: unknown;
    reason: string;
  }) {
    super(
      `replay mismatch at transcript line ${fields.line} (${fields.label}): ${fields.reason}\n` +
        `  expected: ${preview(fields.expected)}\n  actual:   ${preview(fields.actual)}`,
    );
    this.line = fields.line;
    this.label = fields.label;
    this.expected = fields.expected;
    this.actual = fields.actual;
  }
}

function preview(value: unknown): string {
  if (value === undefined) return "(nothing)";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}
