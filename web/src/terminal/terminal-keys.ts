/**
 * The keys the page keeps from the shell: everything else (Tab, Escape, Ctrl+C…) is the
 * shell's while the terminal has the focus. Shift+Escape leaves the terminal (to its panel's
 * close button), so a keyboard user is never trapped; Ctrl+Shift+C copies the selection and
 * Ctrl+Shift+V pastes (the browser's paste lands in xterm's input), as in desktop terminals.
 */
import type { Terminal } from "@xterm/xterm";

export function terminalKeys(terminal: Terminal, leave: () => void) {
  return (event: KeyboardEvent): boolean => {
    if (event.type !== "keydown") return true;
    if (event.key === "Escape" && event.shiftKey) {
      event.preventDefault();
      leave();
      return false;
    }
    if (event.ctrlKey && event.shiftKey && event.code === "KeyC") {
      event.preventDefault();
      const selected = terminal.getSelection();
      if (selected !== "") void navigator.clipboard?.writeText(selected).catch(() => undefined);
      return false;
    }
    // Not sent as ^V: the browser's own paste (its default action) reaches the terminal.
    return !(event.ctrlKey && event.shiftKey && event.code === "KeyV");
  };
}
