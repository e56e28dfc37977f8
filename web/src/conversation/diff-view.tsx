/**
 * A unified diff as a readable +/- view: file headers, hunk headers, added and removed lines
 * marked by colour and by their sign (so it reads without colour too), one under the other or
 * side by side. Text only, no HTML.
 * A diff that was not applied (its ask rejected, its edit failed) is drawn dimmed and struck
 * through, without the colours of a change made.
 */
import { memo } from "preact/compat";
import { kindOf, splitRows } from "./split-diff-rows.js";

export const DiffView = memo(function DiffView(props: {
  diff: string;
  label?: string | undefined;
  /** Default true; false for a change that did not happen. */
  applied?: boolean;
  /** Leaves out the caption (label and counts) where the diff's owner shows them already. */
  bare?: boolean;
  /** Default unified; split puts what was beside what is, for a wide screen. */
  layout?: "unified" | "split";
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
      {props.layout === "split" ? (
        <SplitLines lines={lines} />
      ) : (
        <pre class="diff-lines">
          {lines.map((line, index) => (
            // Lines have no identity but their place: the diff never changes under a key.
            <span key={index} class={`diff-line ${kindOf(line)}`}>
              {line === "" ? " " : line}
            </span>
          ))}
        </pre>
      )}
    </figure>
  );
});

/** The lines side by side: before on the left, after on the right (split-diff-rows.ts). */
function SplitLines(props: { lines: readonly string[] }) {
  return (
    <table class="diff-split" data-testid="diff-split">
      <thead>
        <tr>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {splitRows(props.lines).map((row, index) =>
          // Rows have no identity but their place, as lines have.
          row.kind === "header" ? (
            <tr key={index}>
              <td colSpan={2} class={`diff-line ${row.lineKind}`}>
                {row.line}
              </td>
            </tr>
          ) : (
            <tr key={index}>
              <SplitCell line={row.before} />
              <SplitCell line={row.after} />
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function SplitCell(props: { line: string | undefined }) {
  const { line } = props;
  if (line === undefined) return <td class="diff-line none" />;
  return <td class={`diff-line ${kindOf(line)}`}>{line === "" ? " " : line}</td>;
}
