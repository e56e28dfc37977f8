/**
 * The sidecar's Prometheus metrics (prom-client), on a registry of its own so that two
 * sidecars in one process (tests) do not share counters. The streams part reports clients,
 * events sent and dropped; the routes and the session watcher report the rest.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

export class SidecarMetrics {
  readonly registry = new Registry();
  /** Sessions this sidecar follows now. */
  readonly openSessions: Gauge;
  /** WebSocket and SSE clients connected now (set by the streams). */
  readonly connectedClients: Gauge<"transport">;
  /** Turns ended, by outcome (`completed`, `interrupted`, `failed`). */
  readonly turns: Counter<"outcome">;
  /** Events sent to clients, by kind (`durable`, `ephemeral`) and transport. */
  readonly eventsSent: Counter<"kind" | "transport">;
  /** Text and reasoning deltas sent to clients (a subset of the ephemeral events sent). */
  readonly deltasSent: Counter<"transport">;
  /** Ephemeral events not sent to a client that fell behind. */
  readonly eventsDropped: Counter<"transport">;
  /** Clients closed for falling too far behind. */
  readonly slowConsumerDisconnects: Counter<"transport">;
  /** Times a session's upstream streams came back after losing the server. */
  readonly upstreamReconnects: Counter;
  /** Time to keep one batch of durable events in the store. */
  readonly storeWriteSeconds: Histogram;
  /** HTTP requests answered, by route, method and status. */
  readonly httpRequests: Counter<"route" | "method" | "status">;
  /** Inputs answered from the idempotency cache instead of being admitted again. */
  readonly idempotentReplays: Counter;
  /** What the open sessions could not hand out whole (`Session.stats().deltas`), read at each scrape. */
  readonly sessionDeltas: Gauge<"kind">;
  #deltaStats: () => Record<string, number> = () => ({});

  constructor() {
    const registers = [this.registry];
    this.openSessions = new Gauge({
      name: "ocb_open_sessions",
      help: "Sessions the sidecar follows now",
      registers,
    });
    this.connectedClients = new Gauge({
      name: "ocb_connected_clients",
      help: "Stream clients (WebSocket, SSE) connected now",
      labelNames: ["transport"],
      registers,
    });
    this.turns = new Counter({
      name: "ocb_turns_total",
      help: "Turns ended, by outcome",
      labelNames: ["outcome"],
      registers,
    });
    this.eventsSent = new Counter({
      name: "ocb_events_sent_total",
      help: "Canonical events sent to stream clients",
      labelNames: ["kind", "transport"],
      registers,
    });
    this.deltasSent = new Counter({
      name: "ocb_deltas_sent_total",
      help: "Text and reasoning deltas sent to stream clients",
      labelNames: ["transport"],
      registers,
    });
    this.eventsDropped = new Counter({
      name: "ocb_events_dropped_total",
      help: "Ephemeral events skipped for clients that fell behind",
      labelNames: ["transport"],
      registers,
    });
    this.slowConsumerDisconnects = new Counter({
      name: "ocb_slow_consumer_disconnects_total",
      help: "Stream clients closed for falling too far behind",
      labelNames: ["transport"],
      registers,
    });
    this.upstreamReconnects = new Counter({
      name: "ocb_upstream_reconnects_total",
      help: "Times a session's streams reached the OpenCode server again after losing it",
      registers,
    });
    this.storeWriteSeconds = new Histogram({
      name: "ocb_store_write_seconds",
      help: "Time to keep one batch of durable events in the store",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.httpRequests = new Counter({
      name: "ocb_http_requests_total",
      help: "HTTP requests answered",
      labelNames: ["route", "method", "status"],
      registers,
    });
    const metrics = this;
    this.sessionDeltas = new Gauge({
      name: "ocb_session_deltas",
      help:
        "Of the open sessions, Session.stats().deltas summed: completed_parts, incomplete_parts, " +
        "dropped_deltas, … (see docs/events.md, Deltas)",
      labelNames: ["kind"],
      registers,
      collect() {
        // Every count the runtime keeps, by its name (`droppedDeltas` → `dropped_deltas`).
        for (const [key, value] of Object.entries(metrics.#deltaStats())) {
          this.set({ kind: key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) }, value);
        }
      },
    });
    this.idempotentReplays = new Counter({
      name: "ocb_idempotent_replays_total",
      help: "Inputs answered from the idempotency cache instead of being admitted again",
      registers,
    });
  }

  /** Where `sessionDeltas` is read from at each scrape (the open sessions' stats, summed). */
  readDeltaStatsFrom(source: () => Record<string, number>): void {
    this.#deltaStats = source;
  }

  /** The Prometheus text exposition. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
