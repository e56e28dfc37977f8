/**
 * One session's native `/api` events from the serve's two streams, merged: everything from
 * the durable per-session stream (whole values, in seq order, resumed from the last seq on
 * reconnect without duplicates), plus, from the live global stream, only this session's
 * deltas and the events that exist only there (permission asks). The durable stream stays
 * the authority: a delta that is lost on the live side costs latency, never text, because
 * the whole value arrives as a durable event.
 */
import type { OpencodeClient } from "../../client/opencode-client.js";
import { type ApiEvent, apiEventSessionId } from "../../protocol/api/events.js";
import type { Parsed } from "../../protocol/common.js";
import type { StreamConnectionChange } from "../../transport/transport.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import { mergeAsync } from "./merge-async.js";

/** Live-only event types taken from the global stream (the durable stream never has them). */
export const LIVE_ONLY_TYPES: readonly string[] = [
  "session.next.text.delta",
  "session.next.reasoning.delta",
  "session.next.tool.input.delta",
  "permission.v2.asked",
  "permission.v2.replied",
  "question.v2.asked",
  "question.v2.replied",
  "question.v2.rejected",
];

export interface MergedStreamOptions {
  sessionId: string;
  /** Resume the durable stream after this native seq (0: from the start). */
  after: number;
  signal: AbortSignal;
  directory?: string;
  /** Bound on silence before a stream counts as dropped (heartbeats count). */
  idleTimeoutMs?: number;
  logger?: Logger;
  /**
   * Called each time the live stream (re)connects. Deltas sent before it are lost, so a
   * caller should not prompt before the first call.
   */
  onLiveConnected?: () => void;
  /** Told how each stream's connection fares (see `StreamOptions.onConnection`). */
  onConnection?: (stream: MergedStreamName, change: StreamConnectionChange) => void;
}

export type MergedStreamName = "durable" | "live";

export interface MergedEvent {
  source: "durable" | "live";
  parsed: Parsed<ApiEvent>;
}

/**
 * The merged native stream of one session; ends only when `signal` aborts (or a stream is
 * refused for good: a 4xx, an answer that is not an event stream). Both streams reconnect for
 * as long as it takes: a session must not go deaf because its server was away for a while.
 */
export function mergedSessionStream(
  client: OpencodeClient,
  options: MergedStreamOptions,
): AsyncIterable<MergedEvent> {
  const logger = options.logger ?? silentLogger;
  const streamOptions = (stream: MergedStreamName) => ({
    signal: options.signal,
    maxConsecutiveFailures: Number.POSITIVE_INFINITY,
    ...(options.onConnection === undefined
      ? {}
      : {
          onConnection: (change: StreamConnectionChange) => options.onConnection?.(stream, change),
        }),
    ...(options.directory === undefined ? {} : { directory: options.directory }),
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
  });
  async function* durable(): AsyncIterable<MergedEvent> {
    const events = client.v2.session.events(
      { sessionID: options.sessionId, after: options.after },
      streamOptions("durable"),
    );
    for await (const parsed of events) yield { source: "durable", parsed };
  }
  async function* live(): AsyncIterable<MergedEvent> {
    for await (const parsed of client.v2.event.subscribe(streamOptions("live"))) {
      if (parsed.event.type === "server.connected") options.onLiveConnected?.();
      if (!LIVE_ONLY_TYPES.includes(parsed.event.type)) continue;
      if (sessionOf(parsed) !== options.sessionId) continue;
      yield { source: "live", parsed };
    }
  }
  return mergeAsync([durable(), live()], (error, index) =>
    logger.warn("a serve stream ended with an error", {
      stream: index === 0 ? "durable" : "live",
      error: error instanceof Error ? error.message : String(error),
    }),
  );
}

function sessionOf(parsed: Parsed<ApiEvent>): string | undefined {
  const event = parsed.event as { type: string } & Record<string, unknown>;
  const fromData = apiEventSessionId(event);
  if (fromData !== undefined) return fromData;
  return undefined;
}
