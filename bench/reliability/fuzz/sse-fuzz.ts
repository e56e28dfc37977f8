/**
 * The SSE half of the fuzz: a case's mutated frames written as an event stream (with malformed
 * and noise lines between them, any of the three line endings, sometimes a BOM), its bytes
 * split at random points (mid-line, mid-character), read by the real `HttpTransport.stream`
 * (`readSse`, then the frame decoding) over a `fetch` that serves those chunks, and each frame
 * it yields normalised as the backend would. Every frame must come out once, in order, equal
 * to what was written (a frame that is not JSON as an `unparsed` one carrying its text).
 */
import fc from "fast-check";
import { AbortError } from "../../../src/errors.js";
import { HttpTransport } from "../../../src/transport/http-transport.js";
import { bySurface, caseArbitrary, type FuzzCase, textsOf } from "./cases.js";
import type { FrameProblem } from "./checks.js";
import { type BatchFailure, summarize } from "./normaliser-fuzz.js";
import { PIPELINES } from "./pipelines.js";
import type { SeedSequence, Surface } from "./seed-frames.js";
import type { FuzzTally } from "./tally.js";

const SSE_SURFACES: readonly Surface[] = ["api", "legacy", "v2"];
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
  frames: FuzzCase;
  noise: { before: number; line: string }[];
  eol: "\n" | "\r\n" | "\r";
  bom: boolean;
  /** Where the bytes are split, as fractions of their length. */
  splits: number[];
}

const sseCaseArbitrary: fc.Arbitrary<SseCase> = fc.record({
  frames: caseArbitrary(SSE_SURFACES),
  noise: fc.array(fc.record({ before: fc.nat(), line: fc.constantFrom(...NOISE) }), {
    maxLength: 8,
  }),
  eol: fc.constantFrom("\n" as const, "\r\n" as const, "\r" as const),
  bom: fc.boolean(),
  splits: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
});

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

/** A `fetch` that serves `chunks` once as an event stream, then aborts `stop`. */
function servingOnce(chunks: readonly Uint8Array[], stop: AbortController): typeof fetch {
  let served = false;
  return async () => {
    if (served) {
      stop.abort();
      throw new Error("served once");
    }
    served = true;
    let next = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const chunk = chunks[next++];
          if (chunk !== undefined) return controller.enqueue(chunk);
          controller.close();
          // The reader sees the end, and yields what it completes, in this turn's microtasks;
          // then it would wait out a reconnect delay: the abort ends it first.
          setImmediate(() => stop.abort());
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
}

async function readAll(chunks: readonly Uint8Array[]): Promise<unknown[]> {
  const stop = new AbortController();
  const transport = new HttpTransport({
    url: "http://fuzz.invalid",
    fetch: servingOnce(chunks, stop),
  });
  const frames: unknown[] = [];
  try {
    for await (const frame of transport.stream(() => ({ operation: "event.subscribe" }), {
      signal: stop.signal,
    })) {
      frames.push(frame);
    }
  } catch (error) {
    if (!(error instanceof AbortError)) throw error;
  }
  return frames;
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
    const frames = await readAll(chunksOf(bytes, sseCase.splits));
    tally.addDelivery(expected.length, frames.length);
    if (frames.length !== expected.length) {
      problems.push({
        kind: "sse",
        detail: `${expected.length} frames written, ${frames.length} read`,
      });
    }
    frames.forEach((frame, index) => {
      const text = expected[index];
      if (text !== undefined && !sameFrame(text, frame)) {
        problems.push({ kind: "sse", detail: `frame ${index} read as ${summarize(frame)}` });
      }
      problems.push(...reader.frame(frame));
    });
  } catch (error) {
    problems.push({
      kind: "crash",
      detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
  tally.addCase(sseCase.frames.surface, texts.length, mutated, reader.events);
  tally.addProblems(problems, `sse/${sseCase.frames.surface}`);
  return problems;
}

/** As `fuzzNormalisers`, for streams: batches from `seed` until `tally.mutated` reaches `target`. */
export async function fuzzSse(
  sequences: readonly SeedSequence[],
  seed: number,
  target: number,
  tally: FuzzTally,
  afterBatch: () => void = () => {},
): Promise<BatchFailure | undefined> {
  const grouped = bySurface(sequences);
  const property = fc.asyncProperty(sseCaseArbitrary, async (sseCase) => {
    const problems = await runSseCase(sseCase, grouped, tally);
    if (problems.length > 0) tally.freeze();
    return problems.length === 0;
  });
  for (let batch = 0; tally.mutated < target; batch++) {
    const runs = Math.min(RUNS_PER_BATCH, Math.max(1, Math.ceil((target - tally.mutated) / 4)));
    const result = await fc.check(property, { seed: seed + batch, numRuns: runs });
    afterBatch();
    if (result.failed) {
      return { seed: seed + batch, counterexample: summarize(result.counterexample?.[0]) };
    }
  }
  return undefined;
}
