/**
 * One session's events as server-sent events (`GET /v1/sessions/:id/events`), for clients
 * without WebSocket. Durable events carry `id: <seq>` (a browser's EventSource sends it back
 * as `Last-Event-ID` when it reconnects); ephemeral events have none. Canonical events are
 * plain `message` events; the stream's own are named: `caught-up`, `dropped`, `end` (the feed
 * ended, or the sidecar stops) and `slow-consumer` (the client fell too far behind). A `: ping`
 * comment goes out every heartbeat so proxies and clients see the connection alive.
 */
import type { ServerResponse } from "node:http";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { Logger } from "../../util/logger.js";
import { eventJson } from "./event-json.js";
import type { FeedMembership, FeedSource } from "./feed-types.js";
import { OutboundStream } from "./outbound-stream.js";
import type { SessionFeeds } from "./session-feeds.js";
import { slowConsumerReason } from "./slow-consumer.js";
import { endMessage } from "./stream-ends.js";
import type { StreamLimits } from "./stream-limits.js";
import type { StreamMetrics } from "./stream-metrics.js";

/** How long a browser's EventSource waits before it reconnects, ms. */
const RETRY_MS = 1000;

export interface SseStreamDeps {
  feeds: SessionFeeds;
  limits: StreamLimits;
  metrics: StreamMetrics;
  logger: Logger;
  /** Told once when the stream has ended. */
  onClose?: () => void;
}

export class SseStream {
  readonly #response: ServerResponse;
  readonly #deps: SseStreamDeps;
  readonly #heartbeat: NodeJS.Timeout;
  #membership: FeedMembership | undefined;
  #closed = false;

  /** Starts the response and joins the session's feed from `after`. Throws what `join` throws, before writing anything. */
  constructor(response: ServerResponse, source: FeedSource, after: number, deps: SseStreamDeps) {
    this.#response = response;
    this.#deps = deps;
    const sessionId = source.id;
    const outbound = new OutboundStream({
      output: {
        unsent: () => response.writableLength,
        event: (event: CanonicalEvent) => this.#write(eventFrame(event)),
        caughtUp: (seq) => this.#write(frame("caught-up", { sessionId, seq })),
        dropped: (count) => this.#write(frame("dropped", { sessionId, count })),
        ended: (end) => this.#finish(frame("end", { sessionId, ...endMessage(sessionId, end) })),
        overloaded: (lastSeq) =>
          this.#finish(
            frame("slow-consumer", {
              sessionId,
              code: "slow_consumer",
              message: slowConsumerReason(lastSeq),
            }),
          ),
      },
      bounds: deps.limits.backlog,
      metrics: deps.metrics,
      transport: "sse",
      after,
    });
    // Joined before the headers go out: a refused `after` is still an HTTP error.
    this.#membership = deps.feeds.join(source, outbound, after);
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      // Proxies such as nginx would otherwise hold the events back.
      "x-accel-buffering": "no",
    });
    response.write(`retry: ${RETRY_MS}\n\n`);
    deps.metrics.clientConnected("sse");
    response.on("close", () => this.#onClose());
    this.#heartbeat = setInterval(() => this.#write(": ping\n\n"), deps.limits.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Ends the stream with an `end` event (the sidecar stops). */
  close(code: string, message: string): void {
    this.#finish(frame("end", { code, message }));
  }

  #write(text: string): void {
    if (this.#closed || this.#response.writableEnded) return;
    this.#response.write(text);
  }

  #finish(last: string): void {
    if (this.#closed) return;
    this.#write(last);
    this.#response.end();
    this.#onClose();
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#membership?.leave();
    this.#membership = undefined;
    this.#deps.metrics.clientDisconnected("sse");
    this.#deps.onClose?.();
  }
}

function eventFrame(event: CanonicalEvent): string {
  const data = `data: ${eventJson(event)}\n\n`;
  return event.durable && event.seq !== undefined ? `id: ${event.seq}\n${data}` : data;
}

function frame(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
