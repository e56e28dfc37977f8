/**
 * One changed file of the review panel: its status, path and line counts, then its diff (a
 * large one folded behind "Show diff"), or why there is none. The diff is the agent's work,
 * untrusted: DiffView draws it as text, and only highlight.js's checked output as HTML. Its
 * `---`/`+++` lines are cut off here, so DiffView is given the path for the language.
 */
import type { FileChange } from "opencode-bridge/client";
import { useState } from "preact/hooks";
import { DiffView } from "../conversation/diff-view.js";
import { ViewFileButton } from "../workbench/view-file-button.js";

/** Diffs longer than this (lines) start folded: a generated file must not bury the others. */
const FOLD_LINES = 200;

export interface ChangedFileData extends FileChange {
  patch?: string;
  patchTruncated?: true;
}

export function ChangedFile(props: { file: ChangedFileData; layout: "unified" | "split" }) {
  const { file } = props;
  const hunks = file.patch === undefined ? undefined : hunksOf(file.patch);
  const lineCount = hunks === undefined ? 0 : linesOf(hunks);
  const [open, setOpen] = useState(lineCount <= FOLD_LINES);
  return (
    <li class="changed-file" data-testid="changed-file" data-path={file.path}>
      <div class="changed-file-head">
        <span class={`file-status ${file.status}`}>{file.status}</span>
        <span class="changed-file-path" data-testid="changed-file-path">
          {file.path}
        </span>
        <span class="changed-file-counts">
          <span class="diff-count add">+{file.additions}</span>{" "}
          <span class="diff-count del">−{file.deletions}</span>
        </span>
        {file.status === "deleted" ? null : <ViewFileButton path={file.path} inline />}
      </div>
      {hunks === undefined ? (
        <p class="muted changed-file-note">
          {file.patchTruncated === true
            ? "No diff shown: the session's diffs are longer than the panel is given (1 MiB in all)."
            : "No diff: a binary file, or one the server could not compare."}
        </p>
      ) : open ? (
        <>
          <DiffView diff={hunks} path={file.path} bare layout={props.layout} />
          {file.patchTruncated === true ? (
            <p class="muted changed-file-note" data-testid="patch-truncated">
              The diff is cut here: it is longer than the panel is given (64 KiB a file).
            </p>
          ) : null}
        </>
      ) : (
        <button
          type="button"
          class="show-diff"
          aria-label={`Show the diff of ${file.path} (${lineCount} lines)`}
          onClick={() => setOpen(true)}
        >
          Show diff ({lineCount} lines)
        </button>
      )}
    </li>
  );
}

/**
 * The diff from its first hunk: the `diff --git`, `index` and `---`/`+++` lines repeat what the
 * file's row says. A diff without hunks (a mode change, say) is kept whole.
 */
function hunksOf(patch: string): string {
  const start = patch.search(/^@@/m);
  return start <= 0 ? patch : patch.slice(start);
}

/** The lines a diff shows, its hunk headers and the newline at its end left out. */
function linesOf(hunks: string): number {
  return hunks
    .replace(/\n$/, "")
    .split("\n")
    .filter((line) => !line.startsWith("@@")).length;
}
