/**
 * The SSE half of the fuzz: a case's mutated frames written as an event stream (with malformed
 * and noise lines between them, any of the three line endings, sometimes a BOM), its bytes
 * split at random points (mid-line, mid-character), read as a backend reads it: a typed
 * client's stream (`/api` live or durable, legacy `/event`, 2.0) over the real `HttpTransport`
 * (`readSse`, then the frame decoding), each frame it yields normalised. The transport must
 * read every frame once, in order, as written (one that is not JSON as an `unparsed` frame
 * carrying its text); the client must hand on every one (the durable stream all but replays).
 */
import fc from "fast-check";
import { bySurface, caseArbitrary, type FuzzCase, textsOf } from "./cases.js";
import type { FrameProblem } from "./checks.js";
import { type BatchFailure, summarize } from "./normaliser-fuzz.js";
import { PIPELINES } from "./pipelines.js";
import type { SeedSequence } from "./seed-frames.js";
import { batchSeed, type Share, WHOLE } from "./share.js";
import { readStream, STREAMS, type StreamKind } from "./sse-streams.js";
import type { FuzzTally } from "./tally.js";

const STREAM_KINDS = Object.keys(STREAMS) as StreamKind[];
const RUNS_PER_BATCH = 200;

/** Lines that must not change what a stream carries: comments, unknown or ignored fields. */
const NOISE = [
  ": heartbeat",
  ":",
  "",
  "bogus: 1",
  "nocolon",
  "retry: soon",
  "retry: 1000",
  "event: message.updated",
  "id: 42",
  "id",
  "event",
  "DATA: {}",
  "data_x: 1",
];

export interface SseCase {
  stream: StreamKind;
  frames: FuzzCase;
  noise: { before: number; line: string }[];
  eol: "\n" | "\r\n" | "\r";
  bom: boolean;
  /** Where the bytes are split, as fractions of their length. */
  splits: number[];
}

const sseCaseArbitrary: fc.Arbitrary<SseCase> = fc.constantFrom(...STREAM_KINDS).chain((stream) =>
  fc.record({
    stream: fc.constant(stream),
    frames: caseArbitrary([STREAMS[stream].surface]),
    noise: fc.array(fc.record({ before: fc.nat(), line: fc.constantFrom(...NOISE) }), {
      maxLength: 8,
    }),
    eol: fc.constantFrom("\n" as const, "\r\n" as const, "\r" as const),
    bom: fc.boolean(),
    splits: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
  }),
);

/** The stream's text: each frame a `data:` line, noise lines before it, a blank line after. */
function streamText(sseCase: SseCase, texts: readonly string[]): string {
  const { eol } = sseCase;
  const lines: string[] = [];
  texts.forEach((text, index) => {
    for (const noise of sseCase.noise) {
      if (noise.before % texts.length === index) lines.push(noise.line);
    }
    lines.push(`data: ${text}`, "");
  });
  return (sseCase.bom ? "\uFEFF" : "") + lines.map((line) => line + eol).join("");
}

function chunksOf(bytes: Uint8Array, splits: readonly number[]): Uint8Array[] {
  const points = [...new Set(splits.map((split) => Math.floor(split * bytes.length)))].sort(
    (a, b) => a - b,
  );
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) chunks.push(bytes.subarray(from, point));
    from = Math.max(from, point);
  }
  return chunks;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function asUtf8Carries(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

/** The frame the transport must yield for `text`: its JSON value, or an `unparsed` frame. */
function sameFrame(text: string, frame: unknown): boolean {
  const unparsed = frame as { type?: unknown; data?: unknown } | null;
  let expected: unknown;
  try {
    expected = JSON.parse(text);
  } catch {
    return unparsed?.type === "unparsed" && unparsed.data === text;
  }
  return JSON.stringify(frame) === JSON.stringify(expected);
}

export async function runSseCase(
  sseCase: SseCase,
  sequences: ReturnType<typeof bySurface>,
  tally: FuzzTally,
): Promise<FrameProblem[]> {
  const { texts, mutated } = textsOf(sseCase.frames, sequences);
  // An empty `data:` carries no event: the transport skips it, so it is not expected. A text
  // cut between the two halves of a surrogate pair goes as UTF-8 can carry it: U+FFFD.
  const expected = texts.filter((text) => text.length > 0).map(asUtf8Carries);
  const bytes = new TextEncoder().encode(streamText(sseCase, texts));
  const problems: FrameProblem[] = [];
  const reader = PIPELINES[sseCase.frames.surface].open();
  try {
    const read = await readStream(sseCase.stream, chunksOf(bytes, sseCase.splits));
    problems.push(...transportProblems(expected, read.frames));
    const delivered = sseCase.stream === "api-durable" ? notReplayed(read.frames) : read.frames;
    tally.addDelivery(delivered.length, read.parsed.length);
    if (read.parsed.length !== delivered.length) {
      problems.push({
        kind: "sse",
        detail: `${sseCase.stream}: ${delivered.length} frames to deliver, the client yielded ${read.parsed.length}`,
      });
    }
    for (const parsed of read.parsed) problems.push(...reader.parsed(parsed));
  } catch (error) {
    problems.push({
      kind: "crash",
      detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
  tally.addCase(sseCase.frames.surface, texts.length, mutated, reader.events);
  tally.addProblems(problems, `sse/${sseCase.stream}`);
  return problems;
}

/** The transport must yield each frame written, once, in order, as written. */
function transportProblems(
  expected: readonly string[],
  frames: readonly unknown[],
): FrameProblem[] {
  const problems: FrameProblem[] = [];
  if (frames.length !== expected.length) {
    problems.push({
      kind: "sse",
      detail: `${expected.length} frames written, the transport read ${frames.length}`,
    });
  }
  frames.forEach((frame, index) => {
    const text = expected[index];
    if (text !== undefined && !sameFrame(text, frame)) {
      problems.push({ kind: "sse", detail: `frame ${index} read as ${summarize(frame)}` });
    }
  });
  return problems;
}

/**
 * What the durable stream must deliver of `frames`: all but replays, a replay being an event
 * (a frame with a string `type`; any other is kept as `unparsed`, whatever it holds) whose seq
 * (a whole number >= 0; anything else is no seq) is at or below the highest seen.
 */
function notReplayed(frames: readonly unknown[]): unknown[] {
  let highest = 0;
  return frames.filter((frame) => {
    const event = frame as { type?: unknown; durable?: { seq?: unknown } } | null;
    if (typeof event?.type !== "string") return true;
    const seq = event.durable?.seq;
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) return true;
    if (seq <= highest) return false;
    highest = seq;
    return true;
  });
}

/** As `fuzzNormalisers`, for streams: batches from `seed` until `tally.mutated` reaches `target`. */
export async function fuzzSse(
  sequences: readonly SeedSequence[],
  seed: number,
  target: number,
  tally: FuzzTally,
  afterBatch: () => void = () => {},
  share: Share = WHOLE,
): Promise<BatchFailure | undefined> {
  const grouped = bySurface(sequences);
  const property = fc.asyncProperty(sseCaseArbitrary, async (sseCase) => {
    const problems = await runSseCase(sseCase, grouped, tally);
    if (problems.length > 0) tally.freeze();
    return problems.length === 0;
  });
  for (let batch = 0; tally.mutated < target; batch++) {
    const seedOfBatch = batchSeed(seed, batch, share);
    const runs = Math.min(RUNS_PER_BATCH, Math.max(1, Math.ceil((target - tally.mutated) / 4)));
    const result = await fc.check(property, { seed: seedOfBatch, numRuns: runs });
    afterBatch();
    if (result.failed) {
      return { seed: seedOfBatch, counterexample: summarize(result.counterexample?.[0]) };
    }
  }
  return undefined;
}
