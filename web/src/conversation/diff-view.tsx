/**
 * A unified diff as a readable +/- view: file headers, hunk headers, added and removed lines
 * marked by colour and by their sign (so it reads without colour too), one under the other or
 * side by side. Each line's code is highlighted in its file's language (highlight/), the sign
 * left as text before it; a line without a known language, or a diff past the highlighting
 * bounds, is drawn as text. The diff is untrusted: only highlight.js's checked output is drawn
 * as HTML (diff-code-html.ts), never the diff's own text.
 * A diff that was not applied (its ask rejected, its edit failed) is drawn dimmed and struck
 * through, without the colours of a change made.
 */
import { memo } from "preact/compat";
import { useMemo, useRef } from "preact/hooks";
import { diffCodeHtml } from "../highlight/diff-code-html.js";
import { useNearViewport } from "../highlight/use-near-viewport.js";
import { kindOf, splitRows } from "./split-diff-rows.js";

/** One line of the diff, and its code as highlighted HTML when it has some. */
interface DiffLine {
  text: string;
  html: string | undefined;
}

export const DiffView = memo(function DiffView(props: {
  diff: string;
  label?: string | undefined;
  /** The file the diff is for, when its `---`/`+++` lines are cut off: its language's. */
  path?: string | undefined;
  /** Default true; false for a change that did not happen. */
  applied?: boolean;
  /** Leaves out the caption (label and counts) where the diff's owner shows them already. */
  bare?: boolean;
  /** Default unified; split puts what was beside what is, for a wide screen. */
  layout?: "unified" | "split";
}) {
  const applied = props.applied !== false;
  const figure = useRef<HTMLElement>(null);
  // Highlighted once it scrolls near: a panel of many diffs colours only those it shows.
  const near = useNearViewport(figure);
  // `Index:` and `===` lines repeat the file name the `---`/`+++` lines give.
  const texts = useMemo(
    () =>
      props.diff
        .replace(/\n$/, "")
        .split("\n")
        .filter((line) => !line.startsWith("Index: ") && !/^={10,}$/.test(line)),
    [props.diff],
  );
  const lines = useMemo<DiffLine[]>(() => {
    const html = near ? diffCodeHtml(texts, props.path) : [];
    return texts.map((text, index) => ({ text, html: html[index] }));
  }, [texts, props.path, near]);
  const added = texts.filter((line) => kindOf(line) === "add").length;
  const removed = texts.filter((line) => kindOf(line) === "del").length;
  return (
    <figure
      ref={figure}
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
            <span key={index} class={`diff-line ${kindOf(line.text)}`}>
              <LineText line={line} />
            </span>
          ))}
        </pre>
      )}
    </figure>
  );
});

/** The lines side by side: before on the left, after on the right (split-diff-rows.ts). */
function SplitLines(props: { lines: readonly DiffLine[] }) {
  return (
    <table class="diff-split" data-testid="diff-split">
      <thead>
        <tr>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {splitRows(props.lines, (line) => line.text).map((row, index) =>
          // Rows have no identity but their place, as lines have.
          row.kind === "header" ? (
            <tr key={index}>
              <td colSpan={2} class={`diff-line ${row.lineKind}`}>
                {row.line.text}
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

function SplitCell(props: { line: DiffLine | undefined }) {
  const { line } = props;
  if (line === undefined) return <td class="diff-line none" />;
  return (
    <td class={`diff-line ${kindOf(line.text)}`}>
      <LineText line={line} />
    </td>
  );
}

/**
 * A line as text, or its sign as text and its code as highlight.js's HTML: the sign is never
 * coloured as code, and the line's text (what a reader or a copy gets) is the diff's line.
 */
function LineText(props: { line: DiffLine }) {
  const { text, html } = props.line;
  if (html === undefined) return <>{text === "" ? " " : text}</>;
  return (
    <>
      <span class="diff-sign">{text === "" ? " " : text[0]}</span>
      <span
        class="diff-code"
        // highlight.js's escaped output, checked to hold only its spans (highlighted-html-lines.ts).
        dangerouslySetInnerHTML={{ __html: html }}
      />
    </>
  );
}
