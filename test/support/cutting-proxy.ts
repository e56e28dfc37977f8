/**
 * A TCP proxy in front of a real server that the test can use to cut every open connection
 * at once, as a network drop would (the sockets are destroyed, no clean HTTP end), or to
 * refuse connections for a while, as a stopped server would (the port stops listening).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface CuttingProxy {
  url: string;
  /** Destroys every connection open right now; returns how many were cut. */
  cut(): number;
  /**
   * Arms a cut of the next answer: the first bytes the server sends back on any connection are
   * dropped and that connection destroyed (the request got through, its answer did not).
   * Resolves once it happened.
   */
  cutNextAnswer(): Promise<void>;
  /** Cuts every connection and stops listening: connecting is refused until `resume()`. */
  refuse(): Promise<void>;
  /** Listens again, on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export interface CuttingProxyOptions {
  /** Where it listens (default 127.0.0.1 and a free port). */
  host?: string;
  port?: number;
}

export async function startCuttingProxy(
  target: string,
  options: CuttingProxyOptions = {},
): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const listenHost = options.host ?? "127.0.0.1";
  const open = new Set<Socket>();
  let answerCut: (() => void) | undefined;
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
    // Before the pipe's own listener, so that an armed cut drops the answer's first bytes.
    upstream.on("data", () => {
      const cut = answerCut;
      if (cut === undefined) return;
      answerCut = undefined;
      drop();
      cut();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, listenHost, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const listening = typeof address === "object" && address !== null ? address.port : 0;
  const cut = (): number => {
    const count = open.size / 2;
    for (const socket of [...open]) socket.destroy();
    open.clear();
    return count;
  };
  const urlHost = listenHost.includes(":") ? `[${listenHost}]` : listenHost;
  return {
    url: `http://${urlHost}:${listening}`,
    cut,
    cutNextAnswer() {
      return new Promise<void>((resolve) => {
        answerCut = resolve;
      });
    },
    async refuse() {
      const closed = new Promise((resolve) => server.close(resolve));
      cut();
      await closed;
    },
    async resume() {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(listening, listenHost, () => {
          server.off("error", reject);
          resolve();
        });
      });
    },
    async close() {
      for (const socket of open) socket.destroy();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}
