/** One part of a turn, by its type. Memoised on the part and its streamed text. */
import type { Part } from "opencode-bridge/client";
import { memo } from "preact/compat";
import { assertNever } from "../assert-never.js";
import { Markdown, StreamingMarkdown } from "../markdown/markdown-view.js";
import { ToolCard } from "./tool-card.js";

export const PartView = memo(function PartView(props: {
  part: Part;
  streamed: string | undefined;
}) {
  const { part, streamed } = props;
  switch (part.type) {
    case "text":
      return streamed !== undefined && part.text === "" ? (
        <StreamingMarkdown source={streamed} testId="part-text" />
      ) : (
        <Markdown source={part.text} testId="part-text" />
      );
    case "reasoning": {
      const text = part.text === "" ? (streamed ?? "") : part.text;
      return (
        <details class="part-reasoning" data-testid="part-reasoning">
          <summary>Reasoning</summary>
          <Markdown source={text} />
        </details>
      );
    }
    case "tool":
      return <ToolCard part={part} streamedInput={streamed} />;
    case "permission":
      return (
        <p class="muted part-note">
          Permission {part.permission} {part.reply === undefined ? "asked" : `: ${part.reply}`}
        </p>
      );
    case "question":
      return <p class="muted part-note">Question ({part.state})</p>;
    case "subagent":
      return (
        <p class="muted part-note">
          Subagent {part.agent ?? ""} {part.description ?? ""} ({part.state})
        </p>
      );
    default:
      return assertNever(part);
  }
});
