/** How a turn ended (with the reason and what to do about a failure), and what it cost. */
import type { AssistantMessage, Usage } from "opencode-bridge/client";
import { usageLine } from "../status/usage-text.js";

const HINTS: Record<string, string> = {
  "step-failed": "The model or a tool failed; the error says which. Try again, or switch model.",
  "connection-lost": "The sidecar lost its OpenCode server. Check it is running, then try again.",
  "server-exited": "The OpenCode server stopped. The sidecar starts another; send again.",
  "session-closed": "The session was closed. Open it again to continue.",
  "send-failed": "The input could not be sent to OpenCode. Send it again.",
  "bridge-restarted": "The sidecar restarted while this turn ran. Send again to continue.",
  stalled: "Nothing came from the model for too long. Send again, or switch model.",
};

export function TurnOutcome(props: { message: AssistantMessage; reason: string | undefined }) {
  const { outcome, error } = props.message;
  if (outcome === undefined) return null;
  const { reason } = props;
  const hint =
    (reason === undefined ? undefined : HINTS[reason]) ??
    (error === undefined ? undefined : HINTS[error.kind]) ??
    hintFor(outcome);
  return (
    <div class={`turn-outcome ${outcome}`} data-testid="turn-outcome" data-outcome={outcome}>
      <strong>{LABELS[outcome]}</strong>
      {reason === undefined ? null : <span class="reason"> ({reason})</span>}
      {error === undefined ? null : (
        <p class="error-message">
          {error.kind}: {error.message}
        </p>
      )}
      {hint === undefined ? null : <p class="hint">{hint}</p>}
    </div>
  );
}

const LABELS = { completed: "Completed", interrupted: "Interrupted", failed: "Failed" } as const;

function hintFor(outcome: "completed" | "interrupted" | "failed"): string | undefined {
  if (outcome === "failed") return "Send again to retry, or switch model.";
  if (outcome === "interrupted") return "Stopped before it finished; send again to continue.";
  return undefined;
}

export function TurnUsage(props: { usage: Usage; final: boolean }) {
  return (
    <p class="turn-usage muted" data-testid="turn-usage">
      {props.final ? "" : "so far: "}
      {usageLine(props.usage)}
    </p>
  );
}
