/**
 * How the normalisers of surfaces that report failures and aborts per session (legacy
 * `/event`, `opencode run`) close what a turn left open, so that every backend gives the same
 * shape as the `/api` surface: a failed model call is a `step.failed` (a step is opened first
 * if none had started), an interrupted turn first fails its running tools and ends its step.
 */
import type { Emit } from "./build.js";
import type { ErrorInfo } from "./canonical.js";

/** The model call failed: the open step (or one opened for it) fails. */
export function emitStepFailure(
  emit: Emit,
  openStep: string | undefined,
  fallbackStepId: string,
  error: ErrorInfo,
): void {
  const stepId = openStep ?? fallbackStepId;
  if (openStep === undefined) emit("step.started", { stepId });
  emit("step.failed", { stepId, error });
}

/** The turn was interrupted: its running tools fail, its open step ends. */
export function emitInterruptedWork(
  emit: Emit,
  openStep: string | undefined,
  openCalls: Iterable<string>,
): void {
  for (const callId of openCalls) {
    emit("tool.failed", {
      callId,
      error: { kind: "interrupted", message: "Tool execution interrupted" },
    });
  }
  if (openStep !== undefined) emit("step.ended", { stepId: openStep, finish: "interrupted" });
}
