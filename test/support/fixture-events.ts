/** Native events of a recorded transcript, for normaliser tests and benchmarks. */
import { readTranscript } from "../../src/transport/transcript/transcript.js";

/** The events a transcript recorded on `stream` (all streams when omitted), in order. */
export function recordedEvents(file: string, stream?: string): unknown[] {
  return readTranscript(file).flatMap(({ entry }) =>
    entry.type === "emit_inbound" &&
    entry.frame.type === "sdk.event" &&
    (stream === undefined || entry.frame.stream === stream)
      ? [entry.frame.event]
      : [],
  );
}
