/**
 * One changed file of the review panel: its status, path and line counts, then its diff (a
 * large one folded behind "Show diff"), or why there is none. The diff is the agent's work,
 * untrusted: DiffView draws it as text, and only highlight.js's checked output as HTML. Its
 * `---`/`+++` lines are cut off here, so DiffView is given the path for the language.
 */
import type { FileChange } from "opencode-bridge/client";
import { useRef, useState } from "preact/hooks";
import { DiffView } from "../conversation/diff-view.js";
import { useNearViewport } from "../highlight/use-near-viewport.js";
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
          <DiffWhenNear hunks={hunks} lines={lineCount} path={file.path} layout={props.layout} />
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
 * A diff drawn once it comes near the view, a box of about its height until then: a turn of
 * 200 files lists them all at once, and only the diffs seen cost their elements (20 lines
 * each make ~60; 200 of them held the panel's first frame for a quarter of a second).
 */
function DiffWhenNear(props: {
  hunks: string;
  lines: number;
  path: string;
  layout: "unified" | "split";
}) {
  const box = useRef<HTMLDivElement>(null);
  const near = useNearViewport(box);
  if (near) return <DiffView diff={props.hunks} path={props.path} bare layout={props.layout} />;
  return (
    <div
      ref={box}
      class="diff-placeholder"
      // About the height of its lines (monospace, a little over 1.2em each): the scroll bar is
      // about right meanwhile, and a diff drawn above the view moves what is read very little.
      style={{ height: `${(props.lines * 1.25).toFixed(1)}em` }}
      aria-hidden="true"
    />
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
