/**
 * One turn's output: its parts in order, then its outcome and usage. Memoised: a message is
 * drawn again only when it, or the streamed text of one of its own parts, changed.
 */
import type { AssistantMessage, Part, Usage } from "opencode-bridge/client";
import { memo } from "preact/compat";
import { PartView } from "./part-view.js";
import { TurnOutcome, TurnUsage } from "./turn-outcome.js";

export interface AssistantMessageProps {
  message: AssistantMessage;
  streaming: Readonly<Record<string, string>>;
  running: boolean;
  usage: Usage | undefined;
}

function AssistantMessageBody(props: AssistantMessageProps) {
  const { message } = props;
  const usage = message.usage ?? props.usage;
  return (
    <article
      class="message assistant"
      data-testid="message-assistant"
      data-turn-id={message.turnId}
      aria-label="Assistant"
      aria-busy={props.running}
    >
      {message.parts.map((part) => (
        <PartView key={partKey(part)} part={part} streamed={props.streaming[partKey(part)]} />
      ))}
      {props.running && message.parts.length === 0 ? <p class="muted working">Working…</p> : null}
      {message.outcome === undefined ? null : <TurnOutcome message={message} />}
      {usage === undefined ? null : (
        <TurnUsage usage={usage} final={message.outcome !== undefined} />
      )}
    </article>
  );
}

export const AssistantMessageView = memo(AssistantMessageBody, (before, after) => {
  if (
    before.message !== after.message ||
    before.running !== after.running ||
    before.usage !== after.usage
  ) {
    return false;
  }
  if (before.streaming === after.streaming) return true;
  return after.message.parts.every((part) => {
    const key = partKey(part);
    return before.streaming[key] === after.streaming[key];
  });
});

/** The id the part streams under: its `partId`, or a tool's `callId`. */
export function partKey(part: Part): string {
  switch (part.type) {
    case "text":
    case "reasoning":
      return part.partId;
    case "tool":
    case "subagent":
      return part.callId;
    case "permission":
    case "question":
      return part.requestId;
  }
}
