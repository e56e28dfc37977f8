/**
 * What a running turn is doing now, in a few words, from its parts so far: a tool running
 * (by name), an ask waiting for its answer, text or reasoning streaming, or, between those,
 * waiting on the model (which is thinking, whether it says so or not).
 */
import type { AssistantMessage, PendingAsk } from "opencode-bridge/client";

export function workingActivity(
  message: AssistantMessage,
  streaming: Readonly<Record<string, string>>,
  pendingAsks: readonly PendingAsk[],
): string {
  if (pendingAsks.some((ask) => ask.turnId === message.turnId)) return "Waiting for your answer";
  const tools = message.parts.flatMap((part) =>
    part.type === "tool" && part.state === "running" ? [part] : [],
  );
  // A call whose input still streams is the model writing it; the tool runs once it is parsed.
  const running = tools.filter((part) => Object.keys(part.input).length > 0);
  if (running.length > 0) {
    return `Running ${[...new Set(running.map((part) => part.tool))].join(", ")}`;
  }
  if (tools.length > 0) return `Preparing ${tools[tools.length - 1]?.tool}`;
  const last = message.parts[message.parts.length - 1];
  if (last?.type === "text" && last.text === "" && streaming[last.partId] !== undefined) {
    return "Writing";
  }
  return "Thinking";
}

/** An elapsed time as a reader takes it in at a glance: `8s`, `1m 05s`, `1h 02m`. */
export function elapsedText(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}
