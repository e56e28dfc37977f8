/**
 * The fuzz spread over worker threads, one share each (`share.ts`), its tallies added up: the
 * full run's million frames are CPU work alone, and the suite runs it when the machine's
 * cores have nothing else to do. One worker runs the whole in this thread instead.
 */
import { Worker } from "node:worker_threads";
import {
  type FuzzHalf,
  type FuzzHalfName,
  type FuzzOptions,
  type FuzzResult,
  runFuzz,
} from "./run-fuzz.js";
import { FuzzTally } from "./tally.js";

/** What a worker posts: its progress after a batch, and its result at the end. */
export type WorkerMessage =
  | { kind: "batch"; half: FuzzHalfName; mutated: number }
  | { kind: "result"; result: FuzzResult };

const ENTRY = new URL("../processes/ts-worker.mjs", import.meta.url);
const MODULE = new URL("./fuzz-worker.ts", import.meta.url).href;

export async function runFuzzOnWorkers(
  options: FuzzOptions & { workers: number },
): Promise<FuzzResult> {
  const { workers, afterBatch, ...rest } = options;
  if (workers <= 1) return runFuzz(options);
  const progress = Array.from({ length: workers }, () => ({ normalisers: 0, sse: 0 }));
  const started: Worker[] = [];
  try {
    const results = await Promise.all(
      progress.map((mine, index) => {
        const worker = new Worker(ENTRY, {
          workerData: { module: MODULE, options: { ...rest, share: { index, of: workers } } },
        });
        started.push(worker);
        return new Promise<FuzzResult>((resolve, reject) => {
          worker.on("message", (message: WorkerMessage) => {
            if (message.kind === "result") return resolve(message.result);
            mine[message.half] = message.mutated;
            try {
              afterBatch?.(
                message.half,
                progress.reduce((sum, each) => sum + each[message.half], 0),
              );
            } catch (error) {
              reject(error); // as the run would in one thread, not an uncaught exception
            }
          });
          worker.on("error", reject);
          worker.on("exit", (code) =>
            reject(new Error(`fuzz worker ${index} exited (${code}) before its result`)),
          );
        });
      }),
    );
    return merged(options.seed, results);
  } finally {
    await Promise.all(started.map((worker) => worker.terminate()));
  }
}

/** The shares' results as one: counts added, the first failure kept, the slowest share's time. */
function merged(seed: number, results: readonly FuzzResult[]): FuzzResult {
  const half = (name: FuzzHalfName): FuzzHalf => {
    const tally = new FuzzTally();
    for (const result of results) tally.absorb(result[name].tally);
    return {
      tally,
      seconds: Math.max(...results.map((result) => result[name].seconds)),
      failure: results.find((result) => result[name].failure !== undefined)?.[name].failure,
    };
  };
  return { seed, shares: results.length, normalisers: half("normalisers"), sse: half("sse") };
}
