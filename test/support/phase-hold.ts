/**
 * A preload for end-to-end tests that press Ctrl-C while `ocb run` is in a phase too short to
 * hit by timing (`node --import tsx --import <this file> src/cli/ocb.ts …`, see `startOcb`'s
 * `preload`). `OCB_TEST_HOLD=catalog` holds the model catalog requests of a new session
 * (`GET /api/model`), `admission` holds the input's prompt (`POST /api/session/…/prompt`)
 * before it reaches the server: for up to a minute, and abortably, as the request itself is.
 * The phase's name is written to the file `OCB_TEST_HOLD_MARKER` names when a hold begins.
 * It wraps this process's `fetch`, so that the runtime carries no test hook.
 */
import { writeFileSync } from "node:fs";

export type HeldPhase = "catalog" | "admission";

const HOLD_MS = 60_000;

/** The requests that make up each phase. */
const PHASE_REQUESTS: Record<HeldPhase, (method: string, path: string) => boolean> = {
  catalog: (method, path) => method === "GET" && path === "/api/model",
  admission: (method, path) => method === "POST" && /^\/api\/session\/[^/]+\/prompt$/.test(path),
};

const phase = process.env.OCB_TEST_HOLD;
if (phase === "catalog" || phase === "admission") {
  const marker = process.env.OCB_TEST_HOLD_MARKER;
  const held = PHASE_REQUESTS[phase];
  const fetchThrough = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    if (held(method.toUpperCase(), url.pathname)) {
      if (marker !== undefined) writeFileSync(marker, phase);
      await hold(init?.signal ?? undefined);
    }
    return fetchThrough(input, init);
  };
}

/** Waits `HOLD_MS`; on `signal`, rejects with its reason, as `fetch` does. */
function hold(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, HOLD_MS);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
