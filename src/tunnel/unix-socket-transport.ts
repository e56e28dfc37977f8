/**
 * A `fetch` and a `WebSocket` for a BridgeClient of a sidecar on a Unix socket (`socketPath`),
 * in Node: the tunnel's two halves joined in memory, its server half sending every request
 * and socket to the Unix socket. One implementation of HTTP and WebSockets over a socket path,
 * the one devices' requests take through a relay. The base URL the client is given only
 * names the path and query: give it `http://localhost` (the sidecar's `url`).
 */
import { linkedChannelPair } from "./linked-channel-pair.js";
import { openTunnelClient, type TunnelClient } from "./tunnel-client.js";
import { serveTunnel } from "./tunnel-server.js";
import { UPSTREAM_FAILED } from "./upstream-request.js";

export interface UnixSocketTransport {
  readonly fetch: TunnelClient["fetch"];
  readonly WebSocket: TunnelClient["WebSocket"];
  /** Closes every request and socket made through it; calls made after fail. */
  close(): void;
}

export function unixSocketTransport(socketPath: string): UnixSocketTransport {
  const [clientEnd, serverEnd] = linkedChannelPair();
  const server = serveTunnel(serverEnd, { target: { socketPath } });
  const client = openTunnelClient(clientEnd);
  return {
    // The socket unreachable is a network error, as `fetch` has it, not the tunnel's 502.
    async fetch(input, init) {
      const response = await client.fetch(input, init);
      const failure = await upstreamFailure(response);
      if (failure !== undefined) {
        throw new TypeError(`cannot reach the socket ${socketPath}: ${failure}`);
      }
      return response;
    },
    WebSocket: client.WebSocket,
    close() {
      client.close();
      server.close();
    },
  };
}

/** The tunnel's own "no answer from the target" (a 502 with its code), else undefined. */
async function upstreamFailure(response: Response): Promise<string | undefined> {
  if (response.status !== 502) return undefined;
  try {
    const body = (await response.clone().json()) as { error?: { code?: string; message?: string } };
    if (body.error?.code !== UPSTREAM_FAILED) return undefined;
    await response.body?.cancel();
    return body.error.message ?? "no answer";
  } catch {
    return undefined;
  }
}
