/**
 * A worker thread's entry for a TypeScript module of the checkout (`workerData.module`, a file
 * URL): a worker does not take its parent's `--import tsx` (nor vitest's loader), so the
 * module is loaded through tsx's API. The module reads the rest of `workerData` itself.
 */
import { workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

await tsImport(workerData.module, import.meta.url);
