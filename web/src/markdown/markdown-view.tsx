/**
 * Markdown drawn from sanitised HTML. A streaming text is cut into blocks at blank lines
 * outside code fences: the finished blocks' HTML is memoised (by `renderMarkdown`) and Preact
 * leaves their DOM alone, so each frame re-parses only the last, growing block.
 */
import { memo } from "preact/compat";
import { renderMarkdown } from "./render-markdown.js";

export const Markdown = memo(function Markdown(props: { source: string; testId?: string }) {
  return (
    <div
      class="markdown"
      data-testid={props.testId}
      // Sanitised by DOMPurify in renderMarkdown.
      dangerouslySetInnerHTML={{ __html: renderMarkdown(props.source) }}
    />
  );
});

export function StreamingMarkdown(props: { source: string; testId?: string }) {
  const blocks = markdownBlocks(props.source);
  return (
    <div class="markdown streaming" data-testid={props.testId}>
      {blocks.map((block, index) => (
        // The index is the block's identity: earlier blocks never change once cut.
        <Block key={index} source={block} />
      ))}
    </div>
  );
}

const Block = memo(function Block(props: { source: string }) {
  return (
    <div
      class="markdown-block"
      // Sanitised by DOMPurify in renderMarkdown.
      dangerouslySetInnerHTML={{ __html: renderMarkdown(props.source) }}
    />
  );
});

/** `text` cut at blank lines that are not inside a fenced code block. */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  let fence: string | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (fence === undefined && line.trim() === "" && lineStart > start) {
      blocks.push(text.slice(start, lineStart));
      start = lineEnd + 1;
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (start < text.length) blocks.push(text.slice(start));
  return blocks;
}
