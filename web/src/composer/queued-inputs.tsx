/**
 * Inputs admitted but not yet delivered: queued ones (the next turns, in order) and steers
 * waiting for the running step's end. Removable only where the sidecar offers it.
 */
import type { QueuedInput } from "opencode-bridge/client";

export function QueuedInputs(props: {
  queued: readonly QueuedInput[];
  onRemove: ((inputId: string) => void) | undefined;
}) {
  if (props.queued.length === 0) return null;
  return (
    <ul class="queued" aria-label="Waiting to be delivered">
      {props.queued.map((input) => (
        <li
          key={input.inputId}
          data-testid={input.delivery === "queue" ? "queued-input" : "steering-input"}
          data-input-id={input.inputId}
        >
          <span class="badge">{input.delivery === "queue" ? "queued" : "steering"}</span>{" "}
          <span class="queued-text">{input.text}</span>
          {props.onRemove === undefined || input.delivery !== "queue" ? null : (
            <button
              type="button"
              data-testid="remove-queued"
              aria-label="Remove from the queue"
              onClick={() => props.onRemove?.(input.inputId)}
            >
              ×
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
