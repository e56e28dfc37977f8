/**
 * What the streams report into the sidecar's Prometheus registry: clients connected, events
 * sent (durable and ephemeral), ephemeral events dropped for slow clients, and slow clients
 * disconnected, each by transport (`ws` or `sse`).
 */
import { Counter, Gauge, type Registry } from "prom-client";

export type StreamTransport = "ws" | "sse";

export interface StreamMetrics {
  clientConnected(transport: StreamTransport): void;
  clientDisconnected(transport: StreamTransport): void;
  eventSent(transport: StreamTransport, durable: boolean): void;
  ephemeralDropped(transport: StreamTransport): void;
  slowConsumerDisconnected(transport: StreamTransport): void;
}

/** Metrics that go nowhere (unit tests of one part). */
export const noStreamMetrics: StreamMetrics = {
  clientConnected: () => {},
  clientDisconnected: () => {},
  eventSent: () => {},
  ephemeralDropped: () => {},
  slowConsumerDisconnected: () => {},
};

/** The stream metrics, registered in `registry`. */
export function streamMetrics(registry: Registry): StreamMetrics {
  const registers = [registry];
  const clients = new Gauge({
    name: "ocb_sidecar_stream_clients",
    help: "Stream connections open now (WebSocket or SSE)",
    labelNames: ["transport"] as const,
    registers,
  });
  const sent = new Counter({
    name: "ocb_sidecar_stream_events_sent_total",
    help: "Canonical events written to stream clients, by kind (durable or ephemeral)",
    labelNames: ["transport", "kind"] as const,
    registers,
  });
  const dropped = new Counter({
    name: "ocb_sidecar_stream_events_dropped_total",
    help: "Ephemeral events skipped for clients that fell behind (durable ones never are)",
    labelNames: ["transport"] as const,
    registers,
  });
  const slow = new Counter({
    name: "ocb_sidecar_stream_slow_consumer_disconnects_total",
    help: "Stream clients disconnected for falling too far behind",
    labelNames: ["transport"] as const,
    registers,
  });
  // Zeroes from the start, so a dashboard sees the series before the first client.
  for (const transport of ["ws", "sse"] as const) {
    clients.set({ transport }, 0);
    dropped.inc({ transport }, 0);
    slow.inc({ transport }, 0);
    for (const kind of ["durable", "ephemeral"]) sent.inc({ transport, kind }, 0);
  }
  return {
    clientConnected: (transport) => clients.inc({ transport }),
    clientDisconnected: (transport) => clients.dec({ transport }),
    eventSent: (transport, durable) =>
      sent.inc({ transport, kind: durable ? "durable" : "ephemeral" }),
    ephemeralDropped: (transport) => dropped.inc({ transport }),
    slowConsumerDisconnected: (transport) => slow.inc({ transport }),
  };
}
