/**
 * Text from the model or the sidecar (file paths, diffs, titles, error messages) made safe to
 * print: a terminal obeys escape sequences wherever they come from, so a diff could otherwise
 * retitle the window, hide lines, move the cursor over what was printed or write to the
 * clipboard (OSC 52). Printable text, tabs and newlines stay; everything else goes.
 */

// ESC and what follows it: a CSI (`ESC [` params, final byte), a string (OSC `ESC ]`, DCS
// `ESC P`, SOS `ESC X`, PM `ESC ^`, APC `ESC _`) up to BEL or ST (or the end, when cut), or a
// two-byte escape. Then the 8-bit forms: CSI (0x9b) and the strings' introducers (0x90, 0x98,
// 0x9d, 0x9e, 0x9f), which some terminals still take.
const SEQUENCE = new RegExp(
  [
    "\\u001b\\[[0-?]*[ -/]*[@-~]?",
    "\\u001b[\\]PX^_][^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?",
    "\\u001b[ -~]?",
    "\\u009b[0-?]*[ -/]*[@-~]?",
    "[\\u0090\\u0098\\u009d-\\u009f][^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?",
  ].join("|"),
  "g",
);

// What is left of C0 (but tab and newline), DEL and C1: a carriage return or backspace would
// overwrite what was printed, a bell rings.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` without terminal control sequences and control characters; tabs and newlines kept. */
export function terminalText(text: string): string {
  return text.replace(SEQUENCE, "").replace(CONTROL, "");
}

/** `text` for one line of output (a path, a title): as `terminalText`, newlines and tabs as spaces. */
export function terminalLine(text: string): string {
  return terminalText(text).replace(/[\t\n]/g, " ");
}
