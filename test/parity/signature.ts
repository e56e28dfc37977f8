/**
 * What the parity suite compares: a turn's durable events with ids, times, seqs, native origins
 * and usage left out (deltas are ephemeral and left out too: their chunking differs), each
 * reduced to its type and the data that must agree across backends.
 */
import type { Capabilities } from "../../src/backends/capabilities.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";

export function paritySignature(events: readonly CanonicalEvent[]): string[] {
  const interrupted = events.some(
    (event) => event.type === "turn.ended" && event.data.outcome === "interrupted",
  );
  return events.flatMap((event): string[] => {
    switch (event.type) {
      case "input.admitted":
        return [`${event.type} ${event.data.delivery} ${event.data.text}`];
      case "tool.input.started":
      case "tool.called":
        return [`${event.type} ${event.data.tool}`];
      case "tool.succeeded":
        // The /api runtime's bash tool adds a line of its own ("Command exited with code 0.").
        return [`${event.type} ${event.data.output.trim().split("\n")[0]}`];
      case "tool.failed":
      case "step.failed":
        return [`${event.type} ${event.data.error.kind}`];
      case "text.ended":
      case "reasoning.ended":
        return [`${event.type} ${event.data.text}`];
      case "step.ended":
        // How the server names the finish of an interrupted step differs (`tool-calls`, none).
        return [interrupted ? event.type : `${event.type} ${event.data.finish}`];
      case "turn.ended":
        return [
          `${event.type} ${event.data.outcome} ${event.data.reason ?? ""} ${event.data.error?.kind ?? ""} ${event.data.text ?? ""}`.trim(),
        ];
      default:
        return event.durable ? [event.type] : [];
    }
  });
}

/**
 * The signature a backend with `capabilities` is expected to give, from the reference
 * backend's: only what a missing capability explains is taken out.
 */
export function expectedSignature(
  reference: readonly CanonicalEvent[],
  capabilities: Capabilities,
): string[] {
  // Without live tool calls a tool is printed once it settled: one cut short is never seen.
  const unseen = new Set(
    capabilities.liveToolCalls
      ? []
      : reference.flatMap((event) =>
          event.type === "tool.failed" && event.data.error.kind === "interrupted"
            ? [event.data.callId]
            : [],
        ),
  );
  return paritySignature(
    reference.filter((event) => !("callId" in event.data && unseen.has(event.data.callId))),
  );
}
