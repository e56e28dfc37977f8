/** The top bar's Terminal and Files buttons: a word on a wide screen, a glyph on a phone. */
import type { WorkbenchPanel } from "./use-workbench.js";

export function WorkbenchButtons(props: {
  open: WorkbenchPanel["kind"] | undefined;
  onToggle: (kind: WorkbenchPanel["kind"]) => void;
}) {
  const button = (kind: WorkbenchPanel["kind"], word: string, glyph: string, label: string) => (
    <button
      type="button"
      class="workbench-open"
      data-testid={`${kind}-open`}
      aria-label={label}
      aria-expanded={props.open === kind}
      onClick={() => props.onToggle(kind)}
    >
      <span class="workbench-open-long">{word}</span>
      <span class="workbench-open-short" aria-hidden="true">
        {glyph}
      </span>
    </button>
  );
  return (
    <>
      {button("terminal", "Terminal", ">_", "Terminal: a shell in the session's directory")}
      {button("files", "Files", "▤", "Files: browse the session's directory")}
    </>
  );
}
