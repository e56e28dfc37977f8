/**
 * A test hook, so that an end-to-end test can press Ctrl-C while `ocb run` is in a given phase:
 * `OCB_TEST_HOLD=catalog` (or `admission`) holds the model catalog wait of a new session (or
 * the admission of an input) for up to a minute, abortably like the phase itself, and writes
 * the phase's name to the file `OCB_TEST_HOLD_MARKER` names when the hold begins. Unset
 * (always, outside tests) it costs nothing.
 */
import { writeFileSync } from "node:fs";
import { sleep } from "./abort.js";

export type HeldPhase = "catalog" | "admission";

const HOLD_MS = 60_000;

/** Holds `phase` if the hook names it; rejects with AbortError on `signal`. */
export async function holdForTest(
  phase: HeldPhase,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (process.env.OCB_TEST_HOLD !== phase) return;
  const marker = process.env.OCB_TEST_HOLD_MARKER;
  if (marker !== undefined) writeFileSync(marker, phase);
  await sleep(HOLD_MS, signal, `the ${phase} (held by a test hook)`);
}
