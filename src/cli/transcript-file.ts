/**
 * The transcript file of `ocb export` / `ocb import`: NDJSON whose first line is a header
 * (format, version, the session record) and whose other lines are the session's durable
 * canonical events in seq order. Reading it checks every line, so that a damaged or hand-edited
 * file is refused with its line number before anything reaches the store.
 */
import { UsageError } from "../errors.js";
import { type CanonicalEvent, isCanonicalType, isDurableType } from "../events/canonical.js";
import type { SessionRecord } from "../store/store.js";
import { isRecord } from "../util/is-record.js";

export const TRANSCRIPT_FORMAT = "opencode-bridge.transcript";
export const TRANSCRIPT_VERSION = 1;

export interface Transcript {
  session: SessionRecord;
  events: CanonicalEvent[];
}

/** The file's lines (no newlines): the header, then one event per line. */
export function transcriptLines(transcript: Transcript): string[] {
  const header = {
    format: TRANSCRIPT_FORMAT,
    version: TRANSCRIPT_VERSION,
    session: transcript.session,
  };
  return [header, ...transcript.events].map((value) => JSON.stringify(value));
}

/** The transcript in `text`, checked; a usage error names the first bad line. */
export function parseTranscript(text: string): Transcript {
  const lines = text.split("\n");
  const header = lines[0]?.trim() ?? "";
  if (header === "") throw lineError(1, "no header: the first line must be the transcript header");
  const session = sessionOfHeader(parseLine(header, 1));
  const events: CanonicalEvent[] = [];
  const lineOfId = new Map<string, number>();
  lines.forEach((line, index) => {
    // Blank lines (the final newline above all) carry nothing.
    if (index === 0 || line.trim() === "") return;
    const number = index + 1;
    const event = eventOfLine(parseLine(line, number), number, session.id);
    const first = lineOfId.get(event.id);
    // The store keeps one event per id: a repeat would vanish and the count would lie.
    if (first !== undefined) throw lineError(number, `event id ${event.id} repeats line ${first}`);
    lineOfId.set(event.id, number);
    events.push(event);
  });
  return { session, events };
}

function parseLine(line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw lineError(number, `not JSON (${error instanceof Error ? error.message : error})`);
  }
}

function sessionOfHeader(header: unknown): SessionRecord {
  if (!isRecord(header) || header.format !== TRANSCRIPT_FORMAT) {
    throw lineError(1, `not an opencode-bridge transcript (no "format":"${TRANSCRIPT_FORMAT}")`);
  }
  if (header.version !== TRANSCRIPT_VERSION) {
    throw lineError(
      1,
      `transcript version ${JSON.stringify(header.version)} is not one this ocb reads ` +
        `(${TRANSCRIPT_VERSION})`,
    );
  }
  const session = header.session;
  const bad = (what: string) => lineError(1, `the header's session ${what}`);
  if (!isRecord(session)) throw bad("is missing");
  const { id, backend, directory, state, createdAt, updatedAt, title, upstreamId } = session;
  if (typeof id !== "string" || id === "") throw bad("has no id");
  if (typeof backend !== "string") throw bad("has no backend");
  if (typeof directory !== "string") throw bad("has no directory");
  if (state !== "open" && state !== "released" && state !== "killed") {
    throw bad(`has state ${JSON.stringify(state)}, not open, released or killed`);
  }
  if (!Number.isSafeInteger(createdAt) || !Number.isSafeInteger(updatedAt)) {
    throw bad("needs createdAt and updatedAt in whole milliseconds");
  }
  if (title !== undefined && typeof title !== "string") throw bad("has a title that is no text");
  if (upstreamId !== undefined && typeof upstreamId !== "string") {
    throw bad("has an upstreamId that is no text");
  }
  return {
    id,
    backend,
    ...(upstreamId === undefined ? {} : { upstreamId }),
    directory,
    ...(title === undefined ? {} : { title }),
    state,
    createdAt: createdAt as number,
    updatedAt: updatedAt as number,
  };
}

/** The envelope is checked; the payload is taken as the exporting store kept it. */
function eventOfLine(value: unknown, number: number, sessionId: string): CanonicalEvent {
  if (!isRecord(value)) throw lineError(number, "not an event (a JSON object)");
  const { type } = value;
  if (typeof type !== "string") throw lineError(number, 'no event "type"');
  if (!isCanonicalType(type)) throw lineError(number, `unknown event type ${JSON.stringify(type)}`);
  // The store drops live-only events, so importing one would silently lose it.
  if (!isDurableType(type) || value.durable !== true) {
    throw lineError(number, `${type} is not a durable event; a transcript keeps durable ones only`);
  }
  if (value.sessionId !== sessionId) {
    throw lineError(
      number,
      `the event's sessionId is ${JSON.stringify(value.sessionId)}, not the header's ${sessionId}`,
    );
  }
  if (typeof value.id !== "string" || value.id === "") throw lineError(number, "no event id");
  if (typeof value.at !== "number") throw lineError(number, 'no "at" time');
  if (!isRecord(value.data)) throw lineError(number, 'no "data" object');
  return value as unknown as CanonicalEvent;
}

function lineError(number: number, message: string): UsageError {
  return new UsageError(`line ${number}: ${message}`);
}
