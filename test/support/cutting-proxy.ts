/**
 * A TCP proxy in front of a real server that the test can use to cut every open connection
 * at once, as a network drop would (the sockets are destroyed, no clean HTTP end).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface CuttingProxy {
  url: string;
  /** Destroys every connection open right now; returns how many were cut. */
  cut(): number;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    open.add(client);
    open.add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const listening = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${listening}`,
    cut() {
      const count = open.size / 2;
      for (const socket of [...open]) socket.destroy();
      open.clear();
      return count;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
