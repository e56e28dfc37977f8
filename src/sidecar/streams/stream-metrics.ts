/**
 * What the streams report into the sidecar's metrics (`SidecarMetrics`): clients connected,
 * events sent (durable, ephemeral, and the deltas among them), ephemeral events dropped for
 * slow clients, and slow clients disconnected, each by transport (`ws` or `sse`).
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import type { SidecarMetrics } from "../metrics.js";

export type StreamTransport = "ws" | "sse";

export interface StreamMetrics {
  clientConnected(transport: StreamTransport): void;
  clientDisconnected(transport: StreamTransport): void;
  eventSent(transport: StreamTransport, event: CanonicalEvent): void;
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

/** The stream metrics, reported into the sidecar's. */
export function streamMetrics(metrics: SidecarMetrics): StreamMetrics {
  return {
    clientConnected: (transport) => metrics.connectedClients.inc({ transport }),
    clientDisconnected: (transport) => metrics.connectedClients.dec({ transport }),
    eventSent: (transport, event) => {
      metrics.eventsSent.inc({ transport, kind: event.durable ? "durable" : "ephemeral" });
      if (event.type === "text.delta" || event.type === "reasoning.delta") {
        metrics.deltasSent.inc({ transport });
      }
    },
    ephemeralDropped: (transport) => metrics.eventsDropped.inc({ transport }),
    slowConsumerDisconnected: (transport) => metrics.slowConsumerDisconnects.inc({ transport }),
  };
}
