/**
 * An HTTP proxy in front of a real server that counts the requests open through it, by path:
 * for tests of how many upstream connections (event streams, mostly) the bridge holds.
 */
import { createServer, request as forward, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface CountingProxy {
  url: string;
  /** The paths (without query) of the requests open right now, one entry per request. */
  openPaths(): string[];
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const open = new Map<IncomingMessage, string>();
  const server = createServer((incoming, outgoing) => {
    open.set(incoming, new URL(incoming.url ?? "/", "http://proxy").pathname);
    // The answer's close, not the request's: that one fires once its (empty) body was read.
    outgoing.on("close", () => open.delete(incoming));
    const out = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        outgoing.flushHeaders();
        answer.pipe(outgoing);
      },
    );
    out.on("error", () => outgoing.destroy());
    outgoing.on("close", () => out.destroy());
    incoming.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    openPaths: () => [...open.values()],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
