/** What a client is told when its subscription's feed ends, WebSocket and SSE alike. */

import { assertNever } from "../../util/assert-never.js";
import { describeError } from "../../util/describe-error.js";
import type { FeedEnd } from "./feed-types.js";

export function endMessage(sessionId: string, end: FeedEnd): { code: string; message: string } {
  switch (end.reason) {
    case "session-closed":
      return {
        code: "session_closed",
        message:
          `session ${sessionId} was closed (released, killed, or the sidecar is stopping); ` +
          "subscribe again with after = your last seq to resume once it is open",
      };
    case "failed":
      return {
        code: "stream_failed",
        message:
          `reading the events of session ${sessionId} failed (${describeError(end.error)}); ` +
          "subscribe again with after = your last seq to resume",
      };
    default:
      return assertNever(end, "feed end");
  }
}
