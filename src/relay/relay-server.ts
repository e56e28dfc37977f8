/**
 * `startRelay`: the relay as a server. Plain Node http(s) and `ws`, no framework: the relay
 * serves no API, only three WebSocket paths (and, opt-in, the web chat's files: relay-web.ts),
 * and it decides before each upgrade
 * whether to take it (the Host, the path, the address's limits), so that a refused connection
 * costs it as little as possible.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Duplex } from "node:stream";
import { listenError } from "../util/listen-error.js";
import { clientAddressOf, plainAddress } from "./client-address.js";
import { IpGate } from "./ip-gate.js";
import { Liveness } from "./liveness.js";
import { RELAY_CLOSE } from "./relay-close-codes.js";
import { RelayHub } from "./relay-hub.js";
import { type RelayLimits, relayLimitsOf } from "./relay-limits.js";
import { type RelayLogSink, relayLogger } from "./relay-log.js";
import { type RelayRoute, relayRouteOf } from "./relay-routes.js";
import { answerWebRequest, notFound } from "./relay-web.js";
import { type WebSocket, WebSocketServerClass as WebSocketServer } from "./relay-ws.js";

export interface RelayOptions {
  /** Default 127.0.0.1: a public relay says so (`0.0.0.0`, or behind a reverse proxy). */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** PEM certificate and key: the relay serves wss itself. Without: ws, for a TLS proxy. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** The Host headers accepted (name, or name:port); any when empty or absent. */
  allowHosts?: readonly string[];
  /**
   * Addresses of reverse proxies whose `X-Forwarded-For` is believed (its last entry), so
   * that the per-address limits count clients, not the proxy. None by default.
   */
  trustProxies?: readonly string[];
  limits?: Partial<RelayLimits>;
  /** Where the log lines go. Default: none. */
  log?: RelayLogSink;
  /**
   * The built web chat (`dist/web`) to serve at `/` for plain requests, so that a pairing link
   * based on the relay opens a page that pairs and then uses it. Default: none (every plain
   * request is a 404). Whoever runs the relay then serves the page's code: see docs/relay.md.
   */
  webRoot?: string;
}

export interface Relay {
  /** ws://host:port or wss://host:port, as it listens. */
  readonly url: string;
  readonly limits: RelayLimits;
  /** Closes every socket (1001) and stops listening. */
  close(): Promise<void>;
}

export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
  const limits = relayLimitsOf(options.limits);
  const log = relayLogger(options.log ?? (() => {}));
  const hub = new RelayHub(limits, log);
  const gate = new IpGate(limits.attemptsPerMinutePerIp, limits.concurrentPerIp);
  const liveness = new Liveness(limits.maxMissedPongs);
  const allowHosts = new Set((options.allowHosts ?? []).map((host) => host.toLowerCase()));
  const trustedProxies = new Set((options.trustProxies ?? []).map(plainAddress));
  // No compression: a compressed channel would leak sizes of plaintext through ciphertext
  // lengths, and inflating is work an attacker could ask of the relay.
  const controlServer = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxControlBytes,
    perMessageDeflate: false,
  });
  const dataServer = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxFrameBytes,
    perMessageDeflate: false,
  });

  let stopping = false; // close() has begun: no new socket, while the old ones close
  const server: Server =
    options.tls === undefined
      ? createHttpServer()
      : createHttpsServer({ cert: options.tls.cert, key: options.tls.key });
  const webRoot = options.webRoot;
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const host = request.headers.host?.toLowerCase();
    if (webRoot === undefined || host === undefined) return notFound(response);
    if (allowHosts.size > 0 && !hostAllowed(allowHosts, host)) {
      return void response.writeHead(421, { "content-type": "text/plain" }).end();
    }
    answerWebRequest(webRoot, request, response, host).catch(() => response.destroy());
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {}); // a reset peer: nothing to do, the socket is gone
    if (stopping) return refuseUpgrade(socket, 503, "Service Unavailable");
    const host = request.headers.host?.toLowerCase();
    if (host === undefined || (allowHosts.size > 0 && !hostAllowed(allowHosts, host))) {
      return refuseUpgrade(socket, 421, "Misdirected Request");
    }
    const route = relayRouteOf(request.url ?? "");
    if (route === undefined) return refuseUpgrade(socket, 404, "Not Found");
    const ip = clientAddressOf(request, trustedProxies);
    if (route.kind === "accept") {
      // Bounded by the pending connections instead of the address: a sidecar behind one
      // address opens one data socket per client.
      if (!hub.awaits(route.sidecarId, route.connectionId)) {
        return refuseUpgrade(socket, 404, "Not Found");
      }
      return dataServer.handleUpgrade(request, socket, head, (data) => {
        watch(data);
        hub.onAccept(data, host, route.sidecarId, route.connectionId);
      });
    }
    const admitted = gate.admit(ip);
    // Released when the TCP socket closes, whatever happens to the upgrade (ws answers a
    // malformed one with 400 itself and never hands the socket over).
    if (admitted) socket.once("close", () => gate.release(ip));
    const wss = route.kind === "sidecar" ? controlServer : dataServer;
    wss.handleUpgrade(request, socket, head, (ws) => {
      watch(ws);
      if (!admitted) {
        log("limit", { ip, why: "address", code: RELAY_CLOSE.limit });
        ws.close(RELAY_CLOSE.limit, "too many connections from this address");
        return;
      }
      accept(route, ws, host, ip);
    });
  });

  const accept = (route: RelayRoute, ws: WebSocket, host: string, ip: string): void => {
    if (route.kind === "sidecar") hub.onControl(ws, host, ip);
    else if (route.kind === "connect") hub.onConnect(ws, route.sidecarId, ip);
  };
  const watch = (ws: WebSocket): void => {
    ws.on("error", () => {}); // ws closes the socket itself; the close is what counts
    liveness.watch(ws);
  };

  const address = await listen(server, options.host ?? "127.0.0.1", options.port ?? 0);
  const pingTimer = setInterval(() => liveness.tick(), limits.pingIntervalMs);
  const sweepTimer = setInterval(
    () => {
      hub.sweepIdle();
      gate.sweep();
    },
    Math.max(10, Math.min(limits.idleTimeoutMs / 4, 30_000)),
  );
  const scheme = options.tls === undefined ? "ws" : "wss";
  const url = `${scheme}://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`;
  log("listen");

  let closed: Promise<void> | undefined;
  return {
    url,
    limits,
    close() {
      closed ??= (async () => {
        stopping = true;
        clearInterval(pingTimer);
        clearInterval(sweepTimer);
        hub.stop();
        const sockets = [...controlServer.clients, ...dataServer.clients];
        await Promise.all(sockets.map((ws) => closeSocket(ws)));
        controlServer.close();
        dataServer.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closed;
    },
  };
}

function hostAllowed(allowHosts: ReadonlySet<string>, host: string): boolean {
  if (allowHosts.has(host)) return true;
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  return name !== undefined && allowHosts.has(name);
}

/** A plain HTTP answer before any upgrade: the cheapest refusal. */
function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Closes with 1001 and waits for the close, terminating a peer that does not answer soon. */
function closeSocket(ws: WebSocket): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => ws.terminate(), 1000);
    ws.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
    ws.resume();
    ws.close(RELAY_CLOSE.goingAway, "relay stopping");
  });
}

function listen(
  server: Server,
  host: string,
  port: number,
): Promise<{ host: string; port: number }> {
  return new Promise((resolve, reject) => {
    const onError = (error: unknown): void => reject(listenError(error, host, port, "the relay"));
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      const address = server.address();
      if (address === null || typeof address === "string") {
        return reject(new Error("the relay listens on no TCP address"));
      }
      resolve({ host, port: address.port });
    });
  });
}
