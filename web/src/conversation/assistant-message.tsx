/**
 * One turn's output: its parts in order, then what it is doing while it runs, or its outcome
 * and usage once it ended. Memoised: a message is
 * drawn again only when it, the asks waiting, or the streamed text of one of its own parts
 * changed.
 */
import type { AssistantMessage, PendingAsk, Usage } from "opencode-bridge/client";
import { memo } from "preact/compat";
import { messageLayout } from "./message-layout.js";
import { partKey } from "./part-key.js";
import { PartView } from "./part-view.js";
import { TurnOutcome, TurnUsage } from "./turn-outcome.js";
import { workingActivity } from "./working-activity.js";
import { WorkingRow } from "./working-row.js";

export interface AssistantMessageProps {
  message: AssistantMessage;
  streaming: Readonly<Record<string, string>>;
  pendingAsks: readonly PendingAsk[];
  /** Whether this is the running turn's last message (its working row shows here). */
  running: boolean;
  /** Whether its turn runs (a steered turn's earlier message too). */
  turnRunning: boolean;
  /** When the running turn started (milliseconds since the epoch), while it runs. */
  runningSince: number | undefined;
  usage: Usage | undefined;
  reason: string | undefined;
}

function AssistantMessageBody(props: AssistantMessageProps) {
  const { message } = props;
  const usage = message.usage ?? props.usage;
  const layout = messageLayout(message.parts);

  return (
    <article
      class="message assistant"
      data-testid="message-assistant"
      data-turn-id={message.turnId}
      aria-label="Assistant"
      aria-busy={props.running}
    >
      {message.parts.map((part) => {
        if (part.type === "subagent" && layout.toolCalls.has(part.callId)) return null;
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
            diffShownElsewhere={part.type === "tool" && layout.askedDiffs.has(part.callId)}
            subagent={part.type === "tool" ? layout.subagents.get(part.callId) : undefined}
            turnRunning={props.turnRunning}
          />
        );
      })}
      {props.running ? (
        <WorkingRow
          activity={workingActivity(message, props.streaming, props.pendingAsks)}
          since={props.runningSince}
        />
      ) : null}
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
    before.turnRunning !== after.turnRunning ||
    before.runningSince !== after.runningSince ||
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
