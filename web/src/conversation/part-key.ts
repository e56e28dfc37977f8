import type { Part } from "opencode-bridge/client";

/** The id a part streams and is asked under: a `partId`, a tool's `callId`, an ask's `requestId`. */
export function partKey(part: Part): string {
  switch (part.type) {
    case "text":
    case "reasoning":
      return part.partId;
    case "tool":
    case "subagent":
      return part.callId;
    case "permission":
    case "question":
      return part.requestId;
  }
}
