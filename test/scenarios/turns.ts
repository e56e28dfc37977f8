/** Helpers scenarios share to run and follow turns on each surface. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OpencodeClient } from "../../src/opencode-client/opencode-client.js";
import type { ApiEvent } from "../../src/opencode-protocol/api/events.js";
import type { Parsed } from "../../src/opencode-protocol/common.js";
import type { LegacyEvent } from "../../src/opencode-protocol/legacy/events.js";
import { ReplayTransport } from "../../src/transport/transcript/replay-transport.js";
import { PullReader } from "../support/streams.js";
import type { ScenarioContext } from "./scenario.js";

export const DEMO_MODEL = { providerID: "demo", modelID: "demo-1" } as const;
export const DEMO_MODEL_V2 = { providerID: "demo", id: "demo-1" } as const;

export function clientFor(context: ScenarioContext): OpencodeClient {
  return new OpencodeClient(context.transport, { directory: context.directory });
}

/** True when the scenario runs against a real server (so the filesystem may be checked). */
export function isLive(context: ScenarioContext): boolean {
  return !(context.transport instanceof ReplayTransport);
}

/** What a file in the session directory holds, if it exists. */
export interface WrittenFile {
  exists: boolean;
  content?: string;
}

/**
 * The file at `file` (relative to the session directory) as a live run left it; `undefined`
 * in a replay, which has no file system the server wrote to.
 */
export function writtenFile(context: ScenarioContext, file: string): WrittenFile | undefined {
  if (!isLive(context)) return undefined;
  const path = join(context.directory, file);
  return existsSync(path)
    ? { exists: true, content: readFileSync(path, "utf8") }
    : { exists: false };
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
