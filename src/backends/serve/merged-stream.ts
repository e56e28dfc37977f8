/**
 * One session's native `/api` events from the serve's two streams, merged: everything from
 * the durable per-session stream (whole values, in seq order, resumed from the last seq on
 * reconnect without duplicates), plus, from the live global stream (one connection shared by
 * the sessions open at the location: live-stream.ts), only this session's deltas and the
 * events that exist only there (permission asks). The durable stream stays
 * the authority: a delta that is lost on the live side costs latency, never text, because
 * the whole value arrives as a durable event.
 */
import type { OpencodeClient } from "../../client/opencode-client.js";
import type { ApiEvent } from "../../protocol/api/events.js";
import type { Parsed } from "../../protocol/common.js";
import type { StreamConnectionChange } from "../../transport/transport.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import { joinedEvents } from "../joined-events.js";
import { sharedLiveStream } from "./live-stream.js";
import { mergeAsync } from "./merge-async.js";

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
  const durableOptions = {
    signal: options.signal,
    maxConsecutiveFailures: Number.POSITIVE_INFINITY,
    ...(options.onConnection === undefined
      ? {}
      : {
          onConnection: (change: StreamConnectionChange) =>
            options.onConnection?.("durable", change),
        }),
    ...(options.directory === undefined ? {} : { directory: options.directory }),
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
  };
  async function* durable(): AsyncIterable<MergedEvent> {
    const events = client.v2.session.events(
      { sessionID: options.sessionId, after: options.after },
      durableOptions,
    );
    for await (const parsed of events) yield { source: "durable", parsed };
  }
  async function* live(): AsyncIterable<MergedEvent> {
    const stream = sharedLiveStream(client, {
      directory: options.directory,
      idleTimeoutMs: options.idleTimeoutMs,
      logger,
    });
    const events = joinedEvents(stream, options.sessionId, {
      signal: options.signal,
      ...(options.onLiveConnected === undefined ? {} : { onConnected: options.onLiveConnected }),
      ...(options.onConnection === undefined
        ? {}
        : { onConnection: (change) => options.onConnection?.("live", change) }),
    });
    for await (const parsed of events) yield { source: "live", parsed };
  }
  return mergeAsync([durable(), live()], (error, index) =>
    logger.warn("a serve stream ended with an error", {
      stream: index === 0 ? "durable" : "live",
      error: error instanceof Error ? error.message : String(error),
    }),
  );
}
