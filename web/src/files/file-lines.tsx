/**
 * A file's text beside its line numbers, highlighted in its language (from its name) when
 * highlight.js knows it and the file is within the bounds (highlight/highlighted-lines.ts),
 * as text otherwise. The file is untrusted: only highlight.js's checked output is drawn as HTML,
 * never the file's own text. Highlighted once per file and text, however often drawn.
 */
import { useMemo } from "preact/hooks";
import { highlightedLines } from "../highlight/highlighted-lines.js";
import { languageOfPath } from "../highlight/language-of-path.js";

export function FileLines(props: { path: string; content: string }) {
  const { path, content } = props;
  // The newline that ends the last line starts no line of its own.
  const text = content.endsWith("\n") ? content.slice(0, -1) : content;
  const language = languageOfPath(path);
  const html = useMemo(() => highlightedLines(text, language), [text, language]);
  const numbers = useMemo(
    () => Array.from({ length: text.split("\n").length }, (_, index) => index + 1).join("\n"),
    [text],
  );
  return (
    <>
      <pre class="file-gutter" aria-hidden="true">
        {numbers}
      </pre>
      {html === undefined ? (
        <pre class="file-lines">{text}</pre>
      ) : (
        <pre
          class="file-lines"
          data-language={language}
          // highlight.js's escaped output, checked to hold only its spans: one line of it a
          // line of the file, each line's spans closed, so the gutter's numbers stay beside them.
          dangerouslySetInnerHTML={{ __html: html.join("\n") }}
        />
      )}
    </>
  );
}
