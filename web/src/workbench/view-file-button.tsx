/**
 * "View file" under a tool card that names a file (OpenCode's `read`, `write`, `edit`: their
 * `filePath`, or `path` in OpenCode 1.18), opening it in the files panel; nothing where no
 * panel can open it.
 */
import { useContext } from "preact/hooks";
import { OpenFileContext } from "./open-file-context.js";

export function ViewFileButton(props: { input: Record<string, unknown> }) {
  const openFile = useContext(OpenFileContext);
  const path = props.input.filePath ?? props.input.path;
  if (openFile === undefined || typeof path !== "string" || path === "") return null;
  return (
    <p class="tool-view-file">
      <button
        type="button"
        class="link-button"
        data-testid="view-file"
        onClick={() => openFile(path)}
      >
        View file
      </button>
    </p>
  );
}
