/**
 * How other sidecars of a cluster mark their calls: the headers, and the route `config` of the
 * routes that take them. Below the security hook (which checks them), the cluster's parts (which
 * send them) and the stream routes (which take the relay), so that none of those imports another
 * for a name.
 */

/** The header that marks a forwarded command (its value: the sender's holder id). */
export const FORWARDED_HEADER = "x-ocb-forwarded";

/** The handshake header that marks a WebSocket as another sidecar's delta relay. */
export const RELAY_HEADER = "x-ocb-cluster-relay";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The mark (header) of the calls from other sidecars the route takes (`PEER_ROUTE`). */
    peer?: string;
  }
}

/**
 * The route `config` of the routes other sidecars call, by what they call them for: commands
 * forwarded to a session's driver, and the delta relay's socket. Each takes its own mark only
 * (a forwarded mark on `/v1/ws` would make the secret a client's token for the streams).
 */
export const PEER_ROUTE = {
  forwarded: { peer: FORWARDED_HEADER },
  relay: { peer: RELAY_HEADER },
} as const;
