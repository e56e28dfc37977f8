/**
 * The `model.switched` event of a backend that switches models itself (it names the model on
 * each prompt or run): the server says nothing, so the backend says it.
 */
import { randomUUID } from "node:crypto";
import { canonical } from "../events/build.js";
import type { CanonicalEvent, ModelRef } from "../events/canonical.js";
import type { BackendKind } from "./backend.js";

export function modelSwitchedEvent(
  sessionId: string,
  backend: BackendKind,
  model: ModelRef,
): CanonicalEvent {
  const native = { backend, type: "model.switch", id: `model_${randomUUID()}` };
  return canonical({ sessionId, turnId: undefined, at: Date.now(), native }, 0, "model.switched", {
    model,
  });
}
