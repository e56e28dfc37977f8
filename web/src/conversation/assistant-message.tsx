/**
 * One turn's output: its parts in order, then its outcome and usage. Memoised: a message is
 * drawn again only when it, the asks waiting, or the streamed text of one of its own parts
 * changed.
 */
import type { AssistantMessage, PendingAsk, Usage } from "opencode-bridge/client";
import { memo } from "preact/compat";
import { partKey } from "./part-key.js";
import { PartView } from "./part-view.js";
import { TurnOutcome, TurnUsage } from "./turn-outcome.js";

export interface AssistantMessageProps {
  message: AssistantMessage;
  streaming: Readonly<Record<string, string>>;
  pendingAsks: readonly PendingAsk[];
  running: boolean;
  usage: Usage | undefined;
  reason: string | undefined;
}

function AssistantMessageBody(props: AssistantMessageProps) {
  const { message } = props;
  const usage = message.usage ?? props.usage;
  // A call whose permission ask shows the diff does not show it a second time on its card.
  const askedDiffs = new Set(
    message.parts.flatMap((part) =>
      part.type === "permission" && part.diff !== undefined && part.callId !== undefined
        ? [part.callId]
        : [],
    ),
  );
  return (
    <article
      class="message assistant"
      data-testid="message-assistant"
      data-turn-id={message.turnId}
      aria-label="Assistant"
      aria-busy={props.running}
    >
      {message.parts.map((part) => {
        const key = partKey(part);
        const pending =
          (part.type === "permission" || part.type === "question") &&
          props.pendingAsks.some((ask) => ask.requestId === key);
        return (
          <PartView
            key={key}
            part={part}
            streamed={props.streaming[key]}
            pending={pending}
            diffShownElsewhere={askedDiffs.has(key)}
          />
        );
      })}
      {props.running && message.parts.length === 0 ? <p class="muted working">Working…</p> : null}
      {message.outcome === undefined ? null : (
        <TurnOutcome message={message} reason={props.reason} />
      )}
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
    before.usage !== after.usage ||
    before.reason !== after.reason ||
    before.pendingAsks !== after.pendingAsks
  ) {
    return false;
  }
  if (before.streaming === after.streaming) return true;
  return after.message.parts.every((part) => {
    const key = partKey(part);
    return before.streaming[key] === after.streaming[key];
  });
});
