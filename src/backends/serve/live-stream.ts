/**
 * The serve backend's live stream (`/api/event`), one connection per client and location,
 * shared by the sessions open there (see `SharedStream`). Each event goes to the session it
 * names: those that exist only there (deltas, asks) to be read; the durable events it also
 * carries only as a sign that the session's durable stream is needed (merged-stream.ts).
 */
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { type ApiEvent, apiEventSessionId } from "../../opencode-protocol/api/events.js";
import type { Logger } from "../../util/logger.js";
import { LIVE_CONNECT_TIMEOUT_MS } from "../live-readiness.js";
import { SharedStream } from "../shared-stream.js";

/** Live-only event types taken from the global stream (the durable stream never has them). */
export const LIVE_ONLY_TYPES: ReadonlySet<string> = new Set([
  "session.next.text.delta",
  "session.next.reasoning.delta",
  "session.next.tool.input.delta",
  "permission.v2.asked",
  "permission.v2.replied",
  "question.v2.asked",
  "question.v2.replied",
  "question.v2.rejected",
  // The todo list: 1.18.33 puts it on the live stream only.
  "todo.updated",
]);

export interface LiveStreamOptions {
  directory?: string | undefined;
  /** Bound on silence before the connection counts as dropped (heartbeats count). */
  idleTimeoutMs?: number | undefined;
  logger: Logger;
}

const streams = new WeakMap<OpencodeClient, Map<string, SharedStream<ApiEvent>>>();

/** The server behind `client` was restarted: its live streams connect again now (`SharedStream.reconnect`). */
export function reconnectLiveStreams(client: OpencodeClient): void {
  for (const stream of streams.get(client)?.values() ?? []) stream.reconnect();
}

/** The live stream of `client` at `directory`, opened by its first session. */
export function sharedLiveStream(
  client: OpencodeClient,
  options: LiveStreamOptions,
): SharedStream<ApiEvent> {
  let byLocation = streams.get(client);
  if (byLocation === undefined) {
    byLocation = new Map();
    streams.set(client, byLocation);
  }
  const key = `${options.directory ?? ""}\n${options.idleTimeoutMs ?? ""}`;
  const known = byLocation.get(key);
  if (known !== undefined) return known;
  const location = byLocation;
  const stream: SharedStream<ApiEvent> = new SharedStream<ApiEvent>(
    {
      open: ({ signal, onConnection }) =>
        client.v2.event.subscribe({
          signal,
          onConnection,
          // The sessions must not go deaf because their server was away for a while.
          maxConsecutiveFailures: Number.POSITIVE_INFINITY,
          connectTimeoutMs: LIVE_CONNECT_TIMEOUT_MS,
          ...(options.directory === undefined ? {} : { directory: options.directory }),
          ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
        }),
      keyOf: ({ event }) => apiEventSessionId(event as { type: string } & Record<string, unknown>),
      isConnected: ({ event }) => event.type === "server.connected",
      // Not the stream's own `server.connected`, `server.heartbeat`, `server.instance.disposed`.
      isSubscribed: ({ event }) =>
        !event.type.startsWith("server.") && typeof (event as { id?: unknown }).id === "string",
      logger: options.logger,
    },
    () => {
      if (location.get(key) === stream) location.delete(key);
    },
  );
  byLocation.set(key, stream);
  return stream;
}
