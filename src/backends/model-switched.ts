/**
 * The `model.switched` event of a backend that switches models itself (it names the model on
 * each prompt or run): the server says nothing, so the backend says it.
 */
import type { CanonicalEvent, ModelRef } from "../events/canonical.js";
import type { BackendKind } from "./backend.js";
import { backendEvent } from "./backend-event.js";

export function modelSwitchedEvent(
  sessionId: string,
  backend: BackendKind,
  model: ModelRef,
): CanonicalEvent {
  return backendEvent(sessionId, backend, "model.switch", "model.switched", { model });
}
