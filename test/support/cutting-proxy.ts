/**
 * A TCP proxy in front of a real server that the test can use to cut every open connection
 * at once, as a network drop would (the sockets are destroyed, no clean HTTP end), or to
 * refuse connections for a while, as a stopped server would (the port stops listening).
 * It can also take connections and answer none of them, as a server that is still starting does.
 * It also knows which request each connection carries (the path of its last request line),
 * so that one stream can be cut on its own, now or in the middle of an answer's bytes.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

/** An open connection through the proxy, as the proxy sees it. */
export interface ProxiedConnection {
  id: number;
  /** The path (query included) of the last request sent on it; undefined before the first. */
  path: string | undefined;
  /** Server-sent event messages passed back on it so far (`data:` lines seen in its answer). */
  framesDelivered: number;
}

export interface CutOptions {
  /**
   * Cut inside the next bytes the server sends on it, not between two of them: a part of
   * them passes, ending inside one of their `data:` lines (bytes without one pass whole and
   * the cut waits on), the rest is dropped with the connection: the client reads a truncated
   * frame.
   */
  midFrame?: boolean;
  /** Where in those bytes (0 ≤ x < 1; default Math.random). */
  random?: () => number;
}

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
  /** The connections open right now. */
  connections(): ProxiedConnection[];
  /**
   * Cuts one connection (see `CutOptions`); resolves true once cut, false when it had closed
   * or closes before the bytes a mid-frame cut waits for.
   */
  cutConnection(id: number, options?: CutOptions): Promise<boolean>;
  /** Cuts every connection and stops listening: connecting is refused until `resume()`. */
  refuse(): Promise<void>;
  /**
   * Listens (again, after `refuse()`) but passes nothing on, as an `opencode serve` still
   * starting on its port does: each connection taken until `resume()` is never answered, and
   * stays open until its client gives it up (or `close()`).
   */
  stall(): Promise<void>;
  /** The connections taken while stalled that their client has not given up, with their paths. */
  stalled(): ProxiedConnection[];
  /** Listens again, on the same port, passing connections on (the stall, if any, ends). */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export interface CuttingProxyOptions {
  /** Where it listens (default 127.0.0.1 and a free port). */
  host?: string;
  port?: number;
  /** Sees every byte passed on, either way, with its connection's id: a capture of the traffic. */
  capture?: (connectionId: number, bytes: Buffer) => void;
}

interface Connection {
  info: ProxiedConnection;
  /** Destroys both sockets (no clean end) and forgets the connection. */
  drop(): void;
  /** A mid-frame cut waiting for the next answer bytes. */
  armed: { random: () => number; done: (cut: boolean) => void } | undefined;
}

const REQUEST_LINE = /^[A-Z]+ (\S+) HTTP\/1\.[01]\r\n/;
/** How many `data:` lines `text` (a chunk of an answer) starts. */
function dataLines(text: string): number {
  let count = text.startsWith("data:") ? 1 : 0;
  for (let at = text.indexOf("\ndata:"); at >= 0; at = text.indexOf("\ndata:", at + 1)) count++;
  return count;
}

/**
 * A cut point in `bytes` inside one of its `data:` lines (after its first byte, before its
 * line end), so that the client holds a part of a frame; undefined when they have none.
 */
function midFrameCut(bytes: Buffer, random: () => number): number | undefined {
  const text = bytes.toString("latin1");
  const lines: [number, number][] = [];
  for (let at = text.indexOf("data:"); at >= 0; at = text.indexOf("data:", at + 1)) {
    const end = text.indexOf("\n", at);
    lines.push([at + 1, end < 0 ? text.length : end]);
  }
  const line = lines[Math.floor(random() * lines.length)];
  if (line === undefined) return undefined;
  const [from, to] = line;
  return from + Math.floor(random() * (to - from));
}

export async function startCuttingProxy(
  target: string,
  options: CuttingProxyOptions = {},
): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const listenHost = options.host ?? "127.0.0.1";
  const open = new Map<number, Connection>();
  let nextId = 1;
  let answerCut: (() => void) | undefined;
  let stalling = false;
  const stalled = new Map<number, { info: ProxiedConnection; client: Socket }>();
  const server: Server = createServer((client) => {
    if (stalling) {
      const info: ProxiedConnection = { id: nextId++, path: undefined, framesDelivered: 0 };
      stalled.set(info.id, { info, client });
      const gone = () => stalled.delete(info.id);
      client.on("error", gone).on("close", gone);
      client.on("data", (bytes: Buffer) => {
        info.path ??= REQUEST_LINE.exec(bytes.subarray(0, 2048).toString("latin1"))?.[1];
      });
      return;
    }
    const upstream: Socket = connect(Number(port), hostname);
    const id = nextId++;
    const connection: Connection = {
      info: { id, path: undefined, framesDelivered: 0 },
      armed: undefined,
      drop: () => {
        client.destroy();
        upstream.destroy();
        open.delete(id);
        const armed = connection.armed;
        connection.armed = undefined;
        armed?.done(false);
      },
    };
    open.set(id, connection);
    client.on("error", connection.drop).on("close", connection.drop);
    upstream.on("error", connection.drop).on("close", connection.drop);
    client.on("data", (bytes: Buffer) => {
      options.capture?.(id, bytes);
      const line = REQUEST_LINE.exec(bytes.subarray(0, 2048).toString("latin1"));
      if (line?.[1] !== undefined) connection.info.path = line[1];
    });
    client.pipe(upstream);
    // Passed on by hand (not piped), so that a cut can let a part of a chunk through.
    upstream.on("data", (bytes: Buffer) => {
      const cutAnswer = answerCut;
      if (cutAnswer !== undefined) {
        answerCut = undefined;
        connection.drop();
        cutAnswer();
        return;
      }
      const armed = connection.armed;
      const at = armed === undefined ? undefined : midFrameCut(bytes, armed.random);
      if (armed !== undefined && at !== undefined) {
        connection.armed = undefined;
        // Flushed to the kernel first, then the connection goes without a clean end.
        client.write(bytes.subarray(0, at), () => connection.drop());
        upstream.pause();
        armed.done(true);
        return;
      }
      options.capture?.(id, bytes);
      connection.info.framesDelivered += dataLines(bytes.toString("latin1"));
      if (!client.write(bytes)) {
        upstream.pause();
        client.once("drain", () => upstream.resume());
      }
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, listenHost, () => {
        server.off("error", reject);
        resolve();
      });
    });
  await listen(options.port ?? 0);
  const address = server.address();
  const listening = typeof address === "object" && address !== null ? address.port : 0;
  const cut = (): number => {
    const count = open.size;
    for (const connection of [...open.values()]) connection.drop();
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
    connections: () => [...open.values()].map((connection) => ({ ...connection.info })),
    cutConnection(id, cutOptions = {}) {
      const connection = open.get(id);
      if (connection === undefined) return Promise.resolve(false);
      if (cutOptions.midFrame !== true) {
        connection.drop();
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve) => {
        connection.armed?.done(false);
        connection.armed = { random: cutOptions.random ?? Math.random, done: resolve };
      });
    },
    async refuse() {
      const closed = new Promise((resolve) => server.close(resolve));
      cut();
      await closed;
    },
    async stall() {
      stalling = true;
      if (!server.listening) await listen(listening);
    },
    stalled: () => [...stalled.values()].map(({ info }) => ({ ...info })),
    async resume() {
      stalling = false;
      if (!server.listening) await listen(listening);
    },
    async close() {
      cut();
      for (const { client } of stalled.values()) client.destroy();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}
