/**
 * A switch of the session's model, drawn where it came in the conversation: "Model: A → B".
 * It comes from the session's durable `model.switched` event, so a reload or another tab
 * draws it too. A switch before any step says only what it switched to: which model the
 * session had before is on no event.
 */
import type { ModelSwitch } from "opencode-bridge/client";
import { refOf } from "../model-ref.js";

export function ModelSwitchMark(props: { mark: ModelSwitch }) {
  const { from, to } = props.mark;
  return (
    <p class="model-switch" data-testid="model-switch">
      <span>
        <span class="muted">Model:</span>{" "}
        {from === undefined ? null : (
          <>
            <span data-testid="model-switch-from">{refOf(from)}</span> <span>→</span>{" "}
          </>
        )}
        <span data-testid="model-switch-to">{refOf(to)}</span>
      </span>
    </p>
  );
}
