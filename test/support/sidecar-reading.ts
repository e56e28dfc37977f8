/** Reading a `BridgeClient` subscription in an end-to-end test: until an event, bounded. */

import type { BridgeClient } from "../../src/client/index.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { within } from "./within.js";

/**
 * The events of `sessionId` (from `after`, default 0) up to and including the first that
 * `last` picks; the subscription ends then. `ms` bounds the wait (a safety net).
 */
export async function readUntil(
  client: BridgeClient,
  sessionId: string,
  last: (event: CanonicalEvent) => boolean,
  options: { after?: number; ms?: number; what?: string } = {},
): Promise<CanonicalEvent[]> {
  const stop = new AbortController();
  const seen: CanonicalEvent[] = [];
  const reading = (async () => {
    for await (const event of client.subscribe(sessionId, {
      after: options.after ?? 0,
      signal: stop.signal,
    })) {
      seen.push(event);
      if (last(event)) return seen;
    }
    return seen;
  })();
  try {
    return await within(
      reading,
      `${options.what ?? `an event of ${sessionId}`} (had ${seen.map((event) => event.type).join(", ")})`,
      options.ms ?? 60_000,
    );
  } finally {
    stop.abort();
    reading.catch(() => {});
  }
}

/** The events of turn `turnId` of `sessionId` (read from `after`), up to its end. */
export async function turnEvents(
  client: BridgeClient,
  sessionId: string,
  turnId: string,
  options: { after?: number; what?: string } = {},
): Promise<CanonicalEvent[]> {
  const events = await readUntil(
    client,
    sessionId,
    (event) => event.type === "turn.ended" && event.turnId === turnId,
    { after: options.after ?? 0, what: options.what ?? `the end of ${turnId}` },
  );
  return events.filter((event) => event.turnId === turnId);
}

/** A turn sent and read to its end: its input, its events, its `turn.ended`. */
export interface SentTurn {
  inputId: string;
  turnId: string;
  events: CanonicalEvent[];
  end: CanonicalEvent;
}

/** Sends `text` (queued) and reads its turn to its end (the session's events from `after`). */
export async function sentTurn(
  client: BridgeClient,
  sessionId: string,
  text: string,
  options: { after?: number } = {},
): Promise<SentTurn> {
  const { inputId, turnId } = await client.send(sessionId, { text, delivery: "queue" });
  const events = await turnEvents(client, sessionId, turnId, {
    ...options,
    what: `the end of the turn of ${text.slice(0, 40)}`,
  });
  const end = events.at(-1);
  if (end?.type !== "turn.ended") throw new Error(`the turn of ${text} has no end`);
  return { inputId: inputId ?? "", turnId, events, end };
}
