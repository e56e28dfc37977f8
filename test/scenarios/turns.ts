/** Helpers scenarios share to run and follow turns on each surface. */
import { OpencodeClient } from "../../src/client/opencode-client.js";
import type { ApiEvent } from "../../src/protocol/api/events.js";
import type { Parsed } from "../../src/protocol/common.js";
import type { LegacyEvent } from "../../src/protocol/legacy/events.js";
import { PullReader } from "../support/streams.js";
import type { ScenarioContext } from "./scenario.js";

export const DEMO_MODEL = { providerID: "demo", modelID: "demo-1" } as const;
export const DEMO_MODEL_V2 = { providerID: "demo", id: "demo-1" } as const;

export function clientFor(context: ScenarioContext): OpencodeClient {
  return new OpencodeClient(context.transport, { directory: context.directory });
}

/** The session a legacy event belongs to, if any. */
export function legacySessionOf(item: Parsed<LegacyEvent>): string | undefined {
  const properties = (
    item.event as { properties?: { sessionID?: unknown; info?: { id?: unknown } } }
  ).properties;
  const id = properties?.sessionID ?? properties?.info?.id;
  return typeof id === "string" ? id : undefined;
}

/** A legacy event of `type` for `sessionID`. */
export function isLegacy(item: Parsed<LegacyEvent>, type: string, sessionID: string): boolean {
  return item.event.type === type && legacySessionOf(item) === sessionID;
}

/**
 * The legacy `/event` stream, read on demand. Opening it waits for `server.connected`, so
 * nothing the scenario causes afterwards can be missed.
 */
export async function openLegacyEvents(client: OpencodeClient) {
  const reader = new PullReader(client.event.subscribe());
  await reader.until((item) => item.event.type === "server.connected");
  return Object.assign(reader, {
    /** Events of one session read so far, in order. */
    of: (sessionID: string) => reader.items.filter((item) => legacySessionOf(item) === sessionID),
    /** Reads until the session goes idle. */
    idle: (sessionID: string) => reader.until((item) => isLegacy(item, "session.idle", sessionID)),
  });
}

/** True for the durable event that ends a turn on 1.18's /api: a step not ending in tool calls. */
export function endsTurn(item: Parsed<ApiEvent>): boolean {
  return (
    item.known &&
    ((item.event.type === "session.next.step.ended" && item.event.data.finish !== "tool-calls") ||
      item.event.type === "session.next.step.failed")
  );
}

/** The durable `/api` stream of a session from `after`, read on demand. */
export function openDurableEvents(client: OpencodeClient, sessionID: string, after = 0) {
  const reader = new PullReader(client.v2.session.events({ sessionID, after }));
  return Object.assign(reader, {
    /** Reads until a turn ends. */
    turnEnded: () => reader.until(endsTurn),
  });
}

/** Event types in order (for assertions). */
export function typesOf<E extends { type: string }>(items: Parsed<E>[]): string[] {
  return items.map((item) => item.event.type);
}
