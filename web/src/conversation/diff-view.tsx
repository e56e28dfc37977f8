/**
 * A unified diff as a readable +/- view: file headers, hunk headers, added and removed lines
 * marked by colour and by their sign (so it reads without colour too). Text only, no HTML.
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
}) {
  // `Index:` and `===` lines repeat the file name the `---`/`+++` lines give.
  const lines = props.diff
    .replace(/\n$/, "")
    .split("\n")
    .filter((line) => !line.startsWith("Index: ") && !/^={10,}$/.test(line));
  const added = lines.filter((line) => kindOf(line) === "add").length;
  const removed = lines.filter((line) => kindOf(line) === "del").length;
  return (
    <figure class="part-diff" data-testid="part-diff">
      <figcaption>
        {props.label ?? "Changes"} <span class="diff-count add">+{added}</span>{" "}
        <span class="diff-count del">−{removed}</span>
      </figcaption>
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
