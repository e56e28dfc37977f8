/**
 * One share of the fuzz, in a worker thread (started by `fuzz-workers.ts` through
 * `ts-worker.mjs`): runs it and posts its progress after each batch, then its result.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { WorkerMessage } from "./fuzz-workers.js";
import { type FuzzOptions, runFuzz } from "./run-fuzz.js";

const post = (message: WorkerMessage): void => parentPort?.postMessage(message);
const options = (workerData as { options: Omit<FuzzOptions, "afterBatch"> }).options;
const result = await runFuzz({
  ...options,
  afterBatch: (half, mutated) => post({ kind: "batch", half, mutated }),
});
post({ kind: "result", result });
