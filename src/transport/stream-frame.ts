/**
 * The value of one event-stream frame's data. A frame that is not JSON (cut short, garbled) is
 * kept as an `unparsed` frame with its text and the reason, never thrown: throwing would end the
 * whole stream for one bad frame, and the session would go deaf.
 */
import { UNPARSED_TYPE } from "../opencode-protocol/parse-safely.js";

/** What a stream yields for a frame whose data is not JSON. */
export interface UnparsedFrame {
  type: typeof UNPARSED_TYPE;
  data: string;
  error: string;
}

/** `JSON.parse(data)`, or an `UnparsedFrame` that keeps the text and says why. */
export function streamFrameValue(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { type: UNPARSED_TYPE, data, error: `not JSON: ${why}` } satisfies UnparsedFrame;
  }
}
