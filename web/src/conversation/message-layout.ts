/**
 * How a turn's parts sit together: a tool call whose permission ask shows its diff does not
 * show it again, and a subagent is drawn nested in the card of the tool call (`task`) that
 * started it rather than beside it.
 */
import type { Part, SubagentPart } from "opencode-bridge/client";

export interface MessageLayout {
  /** Tool calls whose diff their permission ask shows. */
  askedDiffs: ReadonlySet<string>;
  /** The subagent each tool call started, by call id. */
  subagents: ReadonlyMap<string, SubagentPart>;
  /** Calls that have a tool part (their subagent is drawn inside it). */
  toolCalls: ReadonlySet<string>;
}

export function messageLayout(parts: readonly Part[]): MessageLayout {
  const askedDiffs = new Set<string>();
  const subagents = new Map<string, SubagentPart>();
  const toolCalls = new Set<string>();
  for (const part of parts) {
    if (part.type === "permission" && part.diff !== undefined && part.callId !== undefined) {
      askedDiffs.add(part.callId);
    } else if (part.type === "subagent") {
      subagents.set(part.callId, part);
    } else if (part.type === "tool") {
      toolCalls.add(part.callId);
    }
  }
  return { askedDiffs, subagents, toolCalls };
}
