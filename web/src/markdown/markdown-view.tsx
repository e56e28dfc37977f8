/**
 * Markdown drawn from sanitised HTML. A streaming text is cut into blocks at blank lines
 * outside code fences: the finished blocks' HTML is memoised and Preact leaves their DOM
 * alone, so each frame parses only the last, growing block — and only while it is short: a
 * long one (a paragraph that never ends) is shown as plain text until the part ends, in chunks
 * drawn as blocks of their own (plain-chunks.ts), so a frame never costs a parse or a layout
 * of a text that keeps growing.
 */
import { memo } from "preact/compat";
import { markdownBlocks } from "./markdown-blocks.js";
import { plainChunks } from "./plain-chunks.js";
import { renderMarkdown, renderMarkdownOnce } from "./render-markdown.js";

/** The longest growing block parsed as Markdown on every frame (characters). */
const LIVE_MARKDOWN_CHARS = 2000;

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
  const tail = blocks.pop() ?? "";
  return (
    <div class="markdown streaming" data-testid={props.testId}>
      {blocks.map((block, index) => (
        // The index is the block's identity: earlier blocks never change once cut.
        <Block key={index} source={block} />
      ))}
      {tail.length <= LIVE_MARKDOWN_CHARS ? (
        <div
          key="tail"
          class="markdown-block"
          // Sanitised by DOMPurify in renderMarkdownOnce.
          dangerouslySetInnerHTML={{ __html: renderMarkdownOnce(tail) }}
        />
      ) : (
        <div key="plain" class="markdown-block plain-tail">
          {plainChunks(tail).map((chunk, index) => (
            // A chunk never changes once full (plain-chunks.ts): its place is its identity.
            <PlainChunk key={index} text={chunk} />
          ))}
        </div>
      )}
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

const PlainChunk = memo(function PlainChunk(props: { text: string }) {
  return <p class="plain-chunk">{props.text}</p>;
});
