/**
 * The peers of a relay in tests, on real loopback sockets: a client socket, a sidecar
 * registered through the real connector, and a client joined to it through a data socket.
 */
import {
  connectToRelay,
  type IncomingConnection,
  type RelayConnector,
} from "../../src/relay/relay-connector.js";
import { generateRelayIdentity, type RelayIdentity } from "../../src/relay/relay-identity.js";
import { RELAY_PATHS } from "../../src/relay/relay-paths.js";
import { type WebSocket, WebSocketClient } from "../../src/relay/relay-ws.js";
import { within } from "./within.js";

/** A socket's frames as they arrive, and its close. */
export interface Peer {
  readonly socket: WebSocket;
  /** The next frame not yet taken. */
  next(what?: string): Promise<Buffer>;
  /** Resolves with the close code. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

export function peerOf(socket: WebSocket): Peer {
  const frames: Buffer[] = [];
  const waiting: ((frame: Buffer) => void)[] = [];
  socket.on("error", () => {});
  socket.on("message", (data) => {
    const waiter = waiting.shift();
    if (waiter !== undefined) waiter(data);
    else frames.push(data);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  return {
    socket,
    next(what = "a frame") {
      const frame = frames.shift();
      if (frame !== undefined) return Promise.resolve(frame);
      return within(new Promise((resolve) => waiting.push(resolve)), what);
    },
    closed,
  };
}

/** A client socket to `path` of the relay, once open (or the HTTP status that refused it). */
export function openPeer(
  relayUrl: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Peer> {
  const socket = new WebSocketClient(`${relayUrl}${path}`, { perMessageDeflate: false, headers });
  const peer = peerOf(socket);
  return within(
    new Promise((resolve, reject) => {
      socket.once("open", () => resolve(peer));
      socket.once("unexpected-response", (_request, response) =>
        reject(new Error(`refused with HTTP ${response.statusCode}`)),
      );
      socket.once("error", reject);
    }),
    `a socket to ${path}`,
  );
}

export function connectClient(relayUrl: string, sidecarId: string): Promise<Peer> {
  return openPeer(relayUrl, RELAY_PATHS.connect(sidecarId));
}

export interface TestSidecar {
  readonly identity: RelayIdentity;
  readonly connector: RelayConnector;
  readonly sidecarId: string;
  /** The next incoming connection not yet taken. */
  incoming(): Promise<IncomingConnection>;
  /** Every state the connector reported. */
  readonly states: string[];
}

/** A sidecar registered on the relay (resolves once the relay confirmed it). */
export async function registeredSidecar(
  relayUrl: string,
  identity: RelayIdentity = generateRelayIdentity(),
): Promise<TestSidecar> {
  const incoming: IncomingConnection[] = [];
  const waiting: ((connection: IncomingConnection) => void)[] = [];
  const states: string[] = [];
  let onRegistered: () => void = () => {};
  const registered = new Promise<void>((resolve) => {
    onRegistered = resolve;
  });
  const connector = connectToRelay({
    url: relayUrl,
    identity,
    onIncoming(connection) {
      const waiter = waiting.shift();
      if (waiter !== undefined) waiter(connection);
      else incoming.push(connection);
    },
    onState(state) {
      states.push(state.kind === "stopped" ? `stopped:${state.why}` : state.kind);
      if (state.kind === "registered") onRegistered();
    },
  });
  await within(registered, "the sidecar's registration");
  return {
    identity,
    connector,
    sidecarId: connector.sidecarId,
    states,
    incoming() {
      const connection = incoming.shift();
      if (connection !== undefined) return Promise.resolve(connection);
      return within(new Promise((resolve) => waiting.push(resolve)), "an incoming connection");
    },
  };
}

/** A client joined to `sidecar` through the relay: both ends, open. */
export async function joinedPeers(
  relayUrl: string,
  sidecar: TestSidecar,
): Promise<{ client: Peer; data: Peer }> {
  const client = await connectClient(relayUrl, sidecar.sidecarId);
  const connection = await sidecar.incoming();
  const data = peerOf(await within(connection.accept(), "the data socket"));
  return { client, data };
}
