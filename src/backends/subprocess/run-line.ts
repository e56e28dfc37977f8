/** One line of `opencode run --format json` stdout, as the subprocess backend reads it. */

/**
 * The line's JSON value, or, for a line that is not JSON, a `stdout.text` frame carrying it:
 * not ours to drop (a plugin or a warning printed to stdout reaches the stream as is).
 * `undefined` for a blank line.
 */
export function runLineValue(line: string): unknown {
  if (line.trim() === "") return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return { type: "stdout.text", text: line };
  }
}
