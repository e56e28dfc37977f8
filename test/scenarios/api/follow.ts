/**
 * What the `/api` scenarios share: typed picks from a read event list, following a session's
 * durable stream until it settles, the live stream for what only it carries (the asks, whose
 * helpers are in `asks.ts`), and the two 204 operations.
 */
import type { OpencodeClient } from "../../../src/opencode-client/opencode-client.js";
import {
  type ApiEvent,
  type ApiEventType,
  apiEventSessionId,
} from "../../../src/opencode-protocol/api/events.js";
import type { PromptRequest } from "../../../src/opencode-protocol/api/session.js";
import type { Parsed } from "../../../src/opencode-protocol/common.js";
import { PullReader } from "../../support/streams.js";
import type { ScenarioContext } from "../scenario.js";
import { clientFor, DEMO_MODEL_V2, endsTurn, openDurableEvents } from "../turns.js";

/** The known `/api` event of one type. */
export type ApiEventOf<T extends ApiEventType> = Extract<ApiEvent, { type: T }>;

/** True for a known event of `type`. */
export function isType<T extends ApiEventType>(
  item: Parsed<ApiEvent>,
  type: T,
): item is { known: true; event: ApiEventOf<T> } {
  return item.known && item.event.type === type;
}

/** The known events of `type` among `items`, in order. */
export function eventsOf<T extends ApiEventType>(
  items: readonly Parsed<ApiEvent>[],
  type: T,
): ApiEventOf<T>[] {
  return items.flatMap((item) => (isType(item, type) ? [item.event] : []));
}

/** Where the first item satisfying `predicate` sits in `items` (-1 if none). */
export function positionOf(
  items: readonly Parsed<ApiEvent>[],
  predicate: (item: Parsed<ApiEvent>) => boolean,
): number {
  return items.findIndex(predicate);
}

/** Message ids admitted (`prompt.admitted`) but not yet delivered (`prompted`). */
export function undelivered(items: readonly Parsed<ApiEvent>[]): string[] {
  const delivered = new Set(eventsOf(items, "session.next.prompted").map((e) => e.data.messageID));
  return eventsOf(items, "session.next.prompt.admitted")
    .map((event) => event.data.messageID)
    .filter((id) => !delivered.has(id));
}

/**
 * A session's durable stream from seq 1, read on demand. 1.18.33 has no end-of-turn event on
 * `/api`, so `settled()` derives it: a step that ends without asking for tool results (or
 * fails) while every admitted prompt has been delivered. A steer or a queued prompt admitted
 * before that step ended keeps the session going.
 */
export function followSession(client: OpencodeClient, sessionID: string) {
  const reader = openDurableEvents(client, sessionID);
  return Object.assign(reader, {
    /** Reads until an event of `type` (matching `where`, if given). */
    untilType: <T extends ApiEventType>(
      type: T,
      where: (event: ApiEventOf<T>) => boolean = () => true,
    ) => reader.until((item) => isType(item, type) && where(item.event)),
    /** Reads until the session has nothing left to do (see above). */
    settled: () =>
      // PullReader adds the item to `items` before asking, so the item itself counts.
      reader.until((item) => endsTurn(item) && undelivered(reader.items).length === 0),
  });
}

/**
 * The live, global `/api/event` stream, read on demand. Opening it waits for
 * `server.connected`, so nothing the scenario causes afterwards is missed. Everything read
 * is recorded, so scenarios read it only as far as they need.
 */
export async function openLiveEvents(client: OpencodeClient) {
  const reader = new PullReader(client.v2.event.subscribe());
  await reader.until((item) => item.event.type === "server.connected");
  return Object.assign(reader, {
    /** The events of one session read so far, in order. */
    of: (sessionID: string) =>
      reader.items.filter((item) => apiEventSessionId(item.event) === sessionID),
  });
}

/** Creates an `/api` session on the demo model and opens its durable stream. */
export async function openApiSession(context: ScenarioContext, title: string) {
  const client = clientFor(context);
  const session = await client.v2.session.create({
    model: DEMO_MODEL_V2,
    location: { directory: context.directory },
    title,
  });
  return { client, session, durable: followSession(client, session.id) };
}

/** Prompts `text` (with `files`, if given) with `delivery: queue`, answering what the server admitted. */
export function queuePrompt(
  client: OpencodeClient,
  sessionID: string,
  text: string,
  files?: PromptRequest["prompt"]["files"],
) {
  const prompt = files === undefined ? { text } : { text, files };
  return client.v2.session.prompt({ sessionID, prompt, delivery: "queue" });
}

/** Durable events of a prompt answered with text alone. */
export const TEXT_TURN = [
  "session.next.prompt.admitted",
  "session.next.prompted",
  "session.next.step.started",
  "session.next.text.started",
  "session.next.text.ended",
  "session.next.step.ended",
];
