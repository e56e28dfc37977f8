/**
 * A unified diff as a readable +/- view: file headers, hunk headers, added and removed lines
 * marked by colour and by their sign (so it reads without colour too). Text only, no HTML.
 * A diff that was not applied (its ask rejected, its edit failed) is drawn dimmed and struck
 * through, without the colours of a change made.
 */
import { memo } from "preact/compat";

type LineKind = "file" | "hunk" | "add" | "del" | "context";

function kindOf(line: string): LineKind {
  if (line.startsWith("+++") || line.startsWith("---")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "context";
}

export const DiffView = memo(function DiffView(props: {
  diff: string;
  label?: string | undefined;
  /** Default true; false for a change that did not happen. */
  applied?: boolean;
  /** Leaves out the caption (label and counts) where the diff's owner shows them already. */
  bare?: boolean;
}) {
  const applied = props.applied !== false;
  // `Index:` and `===` lines repeat the file name the `---`/`+++` lines give.
  const lines = props.diff
    .replace(/\n$/, "")
    .split("\n")
    .filter((line) => !line.startsWith("Index: ") && !/^={10,}$/.test(line));
  const added = lines.filter((line) => kindOf(line) === "add").length;
  const removed = lines.filter((line) => kindOf(line) === "del").length;
  return (
    <figure
      class={applied ? "part-diff" : "part-diff not-applied"}
      data-testid="part-diff"
      data-applied={String(applied)}
    >
      {props.bare === true ? null : (
        <figcaption>
          {props.label ?? "Changes"} <span class="diff-count add">+{added}</span>{" "}
          <span class="diff-count del">−{removed}</span>
          {applied ? null : <span class="diff-not-applied"> (not applied)</span>}
        </figcaption>
      )}
      <pre class="diff-lines">
        {lines.map((line, index) => (
          // Lines have no identity but their place: the diff never changes under a key.
          <span key={index} class={`diff-line ${kindOf(line)}`}>
            {line === "" ? " " : line}
          </span>
        ))}
      </pre>
    </figure>
  );
});
