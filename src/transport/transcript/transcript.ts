/**
 * The transcript format of seed 000: one JSON object per line, recording a session at the
 * operation boundary. `expect_outbound` is a call the client made (and must make again on
 * replay); `emit_inbound` is what came back: a response to a call, or an event on a stream.
 *
 * Two optional fields extend the seed's format: `frame.directory` on a call (the location it
 * was sent for, usually `"<work>"`), and `frame.stream` on an event (the operation of the
 * stream it arrived on, for recordings with more than one stream open).
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { formatIssues, OpencodeBridgeError } from "../../errors.js";

export const TranscriptStart = z.looseObject({
  type: z.literal("transcript_start"),
  provider: z.string(),
  protocol: z.string(),
  version: z.string(),
  scenario: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const ExpectOutbound = z.looseObject({
  type: z.literal("expect_outbound"),
  label: z.string(),
  frame: z.looseObject({
    type: z.string(),
    input: z.unknown().optional(),
    directory: z.string().optional(),
  }),
});

/** A response: `data` is the body (`null` for 204), `{status, body}` an HTTP error, `"<hang>"` none. */
export const ResponseFrame = z.looseObject({
  type: z.literal("sdk.response"),
  operation: z.string(),
  data: z.unknown(),
});

export const EventFrame = z.looseObject({
  type: z.literal("sdk.event"),
  event: z.unknown(),
  stream: z.string().optional(),
});

export const EmitInbound = z.looseObject({
  type: z.literal("emit_inbound"),
  label: z.string(),
  frame: z.discriminatedUnion("type", [ResponseFrame, EventFrame]),
  afterMs: z.number().nonnegative().optional(),
});

export const RuntimeExit = z.looseObject({
  type: z.literal("runtime_exit"),
  status: z.enum(["success", "error", "cancelled"]),
});

export const TranscriptEntry = z.discriminatedUnion("type", [
  TranscriptStart,
  ExpectOutbound,
  EmitInbound,
  RuntimeExit,
]);
export type TranscriptEntry = z.infer<typeof TranscriptEntry>;
export type ExpectOutboundEntry = z.infer<typeof ExpectOutbound>;
export type EmitInboundEntry = z.infer<typeof EmitInbound>;

/** An entry and the line (1-based) it stands on. */
export interface NumberedEntry {
  line: number;
  entry: TranscriptEntry;
}

/** A transcript file that is not valid: the message names the line. */
export class TranscriptFormatError extends OpencodeBridgeError {
  readonly line: number;
  constructor(line: number, message: string, options: { cause?: unknown } = {}) {
    super(`transcript line ${line}: ${message}`, options);
    this.line = line;
  }
}

const ENTRY_TYPES = ["transcript_start", "expect_outbound", "emit_inbound", "runtime_exit"];

/** Parses NDJSON transcript text; blank lines are skipped but counted. */
export function parseTranscript(text: string): NumberedEntry[] {
  const entries: NumberedEntry[] = [];
  const lines = text.split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new TranscriptFormatError(line, `not JSON (${(error as Error).message})`, {
        cause: error,
      });
    }
    const type = (value as { type?: unknown } | null)?.type;
    if (typeof type !== "string" || !ENTRY_TYPES.includes(type)) {
      throw new TranscriptFormatError(
        line,
        `unknown entry type ${JSON.stringify(type)}; expected one of ${ENTRY_TYPES.join(", ")}`,
      );
    }
    const parsed = TranscriptEntry.safeParse(value);
    if (!parsed.success) {
      throw new TranscriptFormatError(
        line,
        `invalid ${type}: ${formatIssues(parsed.error.issues)}`,
      );
    }
    entries.push({ line, entry: parsed.data });
  }
  return entries;
}

/** Reads and parses a transcript file. */
export function readTranscript(path: string): NumberedEntry[] {
  return parseTranscript(readFileSync(path, "utf8"));
}

/** Serialises entries as NDJSON (one per line, trailing newline). */
export function formatTranscript(entries: readonly TranscriptEntry[]): string {
  return (
    entries.map((entry) => JSON.stringify(entry)).join("\n") + (entries.length > 0 ? "\n" : "")
  );
}
