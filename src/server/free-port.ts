/**
 * Port picking for managed servers. `opencode serve --port 0` does not ask the OS for a
 * free port: 1.18.33 tries 4096 first, so two servers started that way collide. The
 * launcher therefore asks the OS itself and passes the port explicitly.
 */
import { createServer } from "node:net";

/** Binds `hostname:0`, reads the port the OS chose, and releases it again. */
export function findFreePort(hostname: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ host: hostname, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : undefined;
      server.close(() =>
        port === undefined ? reject(new Error("the OS assigned no TCP port")) : resolve(port),
      );
    });
  });
}

/** True when `hostname:port` can be bound right now (false when something else holds it). */
export function isPortFree(hostname: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ host: hostname, port, exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}
