/**
 * A paired device's `fetch` and `WebSocket` for a BridgeClient, through a relay: the
 * connection (relay, handshake, tunnel) is made on first use and again after it drops, so the
 * client's own reconnects (its shared socket, a retried call) reconnect the tunnel too. A call
 * that cannot reach the sidecar fails as `fetch` does on a network error (a TypeError naming
 * why), a socket with an `error` then a close 1006: the client already handles both.
 */
import type { TunnelClient } from "../tunnel/tunnel-client.js";
import {
  connectDevice,
  type DeviceConnectOptions,
  type RemoteConnection,
} from "./device-connection.js";
import type { PairedSidecar } from "./paired-sidecar.js";
import { RemoteAccessError } from "./remote-errors.js";

type Listener = (event: never) => void;
type SocketEvent = "open" | "message" | "close" | "error";

export interface RemoteTransport {
  readonly fetch: TunnelClient["fetch"];
  readonly WebSocket: new (url: string) => RemoteWebSocket;
  /** Why the last connection attempt failed or the last connection ended, if it did. */
  readonly lastProblem: RemoteAccessError | undefined;
  /** Closes the connection; calls made after fail. */
  close(): void;
}

export function remoteTransport(
  paired: PairedSidecar,
  options: DeviceConnectOptions,
): RemoteTransport {
  let current: Promise<RemoteConnection> | undefined;
  let closed = false;
  let lastProblem: RemoteAccessError | undefined;
  const connection = (): Promise<RemoteConnection> => {
    if (closed)
      return Promise.reject(
        new RemoteAccessError("unreachable", "the remote transport was closed"),
      );
    if (current !== undefined) return current;
    const attempt = connectDevice(paired, options);
    current = attempt;
    attempt.then(
      (connected) => {
        void connected.closed.then(({ code, reason }) => {
          if (current === attempt) current = undefined;
          if (code !== 1000)
            lastProblem = new RemoteAccessError(
              "unreachable",
              `the connection ended: ${reason || code}`,
            );
        });
      },
      (error: unknown) => {
        if (current === attempt) current = undefined;
        if (error instanceof RemoteAccessError) lastProblem = error;
      },
    );
    return attempt;
  };

  const fetch: TunnelClient["fetch"] = async (input, init) => {
    let connected: RemoteConnection;
    try {
      connected = await connection();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new TypeError(`the sidecar cannot be reached through its relays: ${why}`, {
        cause: error,
      });
    }
    return connected.tunnel.fetch(input, init);
  };

  class Socket extends RemoteWebSocket {
    constructor(url: string) {
      super(url, connection);
    }
  }

  return {
    fetch,
    WebSocket: Socket,
    get lastProblem() {
      return lastProblem;
    },
    close() {
      closed = true;
      void current?.then(
        (connected) => connected.close(),
        () => {},
      );
    },
  };
}

/**
 * A WebSocket through the tunnel that exists before the tunnel does: it is CONNECTING while
 * the connection is made, then forwards to the tunnel's own socket.
 */
export class RemoteWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  #readyState = 0;
  #inner: InstanceType<TunnelClient["WebSocket"]> | undefined;
  #closedEarly: { code: number; reason: string } | undefined;
  readonly #listeners = new Map<SocketEvent, Set<Listener>>();

  constructor(url: string, connect: () => Promise<RemoteConnection>) {
    connect().then(
      (connected) => {
        if (this.#closedEarly !== undefined) return;
        const inner = new connected.tunnel.WebSocket(url);
        this.#inner = inner;
        for (const type of ["open", "message", "close", "error"] as const) {
          inner.addEventListener(type, (event: unknown) => {
            this.#readyState = inner.readyState;
            this.#emit(type, event);
          });
        }
      },
      (error: unknown) => {
        if (this.#closedEarly !== undefined) return;
        this.#readyState = 3;
        const reason = error instanceof Error ? error.message : String(error);
        this.#emit("error", { error });
        this.#emit("close", { code: 1006, reason: reason.slice(0, 123), wasClean: false });
      },
    );
  }

  get readyState(): number {
    return this.#readyState;
  }

  send(data: string): void {
    if (this.#inner === undefined || this.#readyState !== 1) {
      throw new Error("the WebSocket is not open yet (wait for its open event)");
    }
    this.#inner.send(data);
  }

  close(code = 1000, reason = ""): void {
    if (this.#inner !== undefined) {
      this.#inner.close(code, reason);
      return;
    }
    if (this.#closedEarly !== undefined) return;
    this.#closedEarly = { code, reason };
    this.#readyState = 3;
    queueMicrotask(() => this.#emit("close", { code, reason, wasClean: true }));
  }

  addEventListener(type: SocketEvent, listener: (event: never) => void): void {
    const listeners = this.#listeners.get(type) ?? new Set();
    listeners.add(listener);
    this.#listeners.set(type, listeners);
  }

  removeEventListener(type: SocketEvent, listener: (event: never) => void): void {
    this.#listeners.get(type)?.delete(listener);
  }

  #emit(type: SocketEvent, event: unknown): void {
    for (const listener of this.#listeners.get(type) ?? [])
      (listener as (event: unknown) => void)(event);
  }
}
