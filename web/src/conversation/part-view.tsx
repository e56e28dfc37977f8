/** One part of a turn, by its type. Memoised on the part, its streamed text and its ask state. */
import type { Part, SubagentPart } from "opencode-bridge/client";
import { memo } from "preact/compat";
import { assertNever } from "../assert-never.js";
import { Markdown, StreamingMarkdown } from "../markdown/markdown-view.js";
import { PermissionAsk, PermissionRecord } from "./permission-ask.js";
import { QuestionAsk, QuestionRecord } from "./question-ask.js";
import { SubagentCard } from "./subagent-card.js";
import { ToolCard } from "./tool-card.js";

export interface PartViewProps {
  part: Part;
  streamed: string | undefined;
  /** An ask still waiting for its answer. */
  pending: boolean;
  /** A tool call whose diff its permission ask shows. */
  diffShownElsewhere: boolean;
  /** The subagent a tool call started, drawn inside its card. */
  subagent: SubagentPart | undefined;
  /** Whether the part's turn still runs. */
  turnRunning: boolean;
}

export const PartView = memo(function PartView(props: PartViewProps) {
  const { part, streamed } = props;
  switch (part.type) {
    case "text":
      return streamed !== undefined && part.text === "" ? (
        <StreamingMarkdown source={streamed} testId="part-text" />
      ) : (
        <Markdown source={part.text} testId="part-text" />
      );
    case "reasoning": {
      const live = part.text === "" && streamed !== undefined;
      return (
        <details class="part-reasoning" data-testid="part-reasoning">
          <summary>Reasoning{live ? "…" : ""}</summary>
          {live ? <StreamingMarkdown source={streamed} /> : <Markdown source={part.text} />}
        </details>
      );
    }
    case "tool":
      return (
        <ToolCard
          part={part}
          streamedInput={streamed}
          showDiff={!props.diffShownElsewhere}
          turnRunning={props.turnRunning}
        >
          {props.subagent === undefined ? null : <SubagentCard part={props.subagent} />}
        </ToolCard>
      );
    case "permission":
      return props.pending ? <PermissionAsk part={part} /> : <PermissionRecord part={part} />;
    case "question":
      return props.pending ? <QuestionAsk part={part} /> : <QuestionRecord part={part} />;
    case "subagent":
      return <SubagentCard part={part} />;
    default:
      return assertNever(part);
  }
});
