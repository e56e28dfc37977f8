import type { Part } from "opencode-bridge/client";

/**
 * A part's key among its turn's parts, and the id it streams and is asked under: a `partId`,
 * a tool's `callId`, an ask's `requestId`.
 */
export function partKey(part: Part): string {
  switch (part.type) {
    case "text":
    case "reasoning":
      return part.partId;
    case "tool":
      return part.callId;
    case "subagent":
      // Its call's tool part has the call id: a key of its own, so the two never collide.
      return `subagent:${part.callId}`;
    case "permission":
    case "question":
      return part.requestId;
  }
}
