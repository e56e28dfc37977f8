/**
 * The events the store benches ((p), (k)) append: finished text parts of about 230 characters,
 * the size a chat's durable events mostly are.
 */
import { canonical } from "../src/events/build.js";
import type { CanonicalEvent } from "../src/events/canonical.js";
import type { Store } from "../src/store/store.js";

const TEXT = "I'll look at the login handler first, then run the tests to see what fails. ";

/** `count` text events of `sessionId`, ids `e<from>`, `e<from + 1>`, … */
export function textEvents(sessionId: string, from: number, count: number): CanonicalEvent[] {
  return Array.from({ length: count }, (_, offset) => {
    const id = `e${from + offset}`;
    const native = { backend: "replay" as const, type: "bench", id };
    const origin = { sessionId, turnId: "turn_1", at: 1_800_000_000_000, native };
    const event = canonical(origin, 0, "text.ended", { partId: id, text: TEXT.repeat(3) });
    return { ...event, id };
  });
}

/** The write pattern of the store benches: `sessions` at once, `batch` events per append. */
export interface StoreLoad {
  sessions: number;
  eventsPerSession: number;
  batch: number;
}

/**
 * Appends `load` to `store` (every session's next batch at once), then reads every session
 * back; the ms of each, and a check that every event came back (`figure` names the bench).
 */
export async function appendThenReplay(
  store: Store,
  load: StoreLoad,
  figure: string,
): Promise<{ appendMs: number; replayMs: number }> {
  const sessions = Array.from({ length: load.sessions }, (_, index) => `ses_${index}`);
  const started = performance.now();
  for (let from = 0; from < load.eventsPerSession; from += load.batch) {
    const count = Math.min(load.batch, load.eventsPerSession - from);
    await Promise.all(
      sessions.map((id) => store.append(id, textEvents(id, from, count), String(from + count))),
    );
  }
  const appendMs = performance.now() - started;
  const replayStarted = performance.now();
  let read = 0;
  for (const id of sessions) read += (await store.read(id)).length;
  const replayMs = performance.now() - replayStarted;
  if (read !== load.sessions * load.eventsPerSession) {
    throw new Error(
      `${figure} read back ${read} events, not ${load.sessions * load.eventsPerSession}`,
    );
  }
  return { appendMs, replayMs };
}
