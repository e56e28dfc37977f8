/**
 * "View file": opens a file of the session in the files panel, under a tool card that names
 * one and beside a changed file of the review panel; nothing where no panel can open it.
 */
import { useContext } from "preact/hooks";
import { OpenFileContext } from "./open-file-context.js";

export function ViewFileButton(props: { path: string | undefined; inline?: boolean }) {
  const openFile = useContext(OpenFileContext);
  const { path } = props;
  if (openFile === undefined || path === undefined || path === "") return null;
  const button = (
    <button
      type="button"
      class="link-button view-file"
      data-testid="view-file"
      aria-label={`View file ${path}`}
      onClick={() => openFile(path)}
    >
      View file
    </button>
  );
  return props.inline === true ? button : <p class="tool-view-file">{button}</p>;
}

/** The file a tool call names: OpenCode's `read`, `write`, `edit` (`filePath`; `path` in 1.18). */
export function toolFilePath(input: Record<string, unknown>): string | undefined {
  const path = input.filePath ?? input.path;
  return typeof path === "string" ? path : undefined;
}
