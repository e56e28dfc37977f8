/**
 * The sidecar's side of a relay: keep a control socket registered (reconnecting with full-
 * jitter backoff while the signal lets it), and on each incoming client open a data socket
 * that the relay joins to it. What travels on a data socket is the caller's business; the
 * relay sees it as opaque binary frames.
 */
import { RELAY_CLOSE } from "./relay-close-codes.js";
import {
  acceptMessage,
  type RelayIdentity,
  registrationMessage,
  sidecarIdOf,
  signRelayMessage,
} from "./relay-identity.js";
import { parseRelayMessage, RelayToSidecar } from "./relay-messages.js";
import { RELAY_PATHS } from "./relay-paths.js";
import { type WebSocket, WebSocketClient } from "./relay-ws.js";

export interface IncomingConnection {
  readonly connectionId: string;
  /** Opens the data socket and proves it is this sidecar's; resolves once the relay has it. */
  accept(): Promise<WebSocket>;
}

export type RelayConnectorState =
  | { kind: "registered"; sidecarId: string }
  | { kind: "disconnected"; code: number; retryInMs: number }
  /** No more reconnects: aborted, or replaced by a newer connection of the same identity. */
  | { kind: "stopped"; why: "aborted" | "replaced" };

export interface RelayConnectorOptions {
  /** The relay's base URL, ws:// or wss://. */
  url: string;
  identity: RelayIdentity;
  onIncoming(incoming: IncomingConnection): void;
  onState?(state: RelayConnectorState): void;
  signal?: AbortSignal;
  /** The first retry's ceiling, doubled per failure up to `maxBackoffMs`. Default 500 ms. */
  baseBackoffMs?: number;
  /** Default 30 s: a relay that restarts is waited for, not hammered. */
  maxBackoffMs?: number;
  /** CA certificate(s), PEM, of a relay with a self-signed certificate. */
  ca?: string | Buffer;
  /** Injectable for tests. */
  random?: () => number;
}

export interface RelayConnector {
  readonly sidecarId: string;
  /** Stops reconnecting and closes the control socket; resolves once it is closed. */
  close(): Promise<void>;
}

/** Full jitter (AWS's "Exponential Backoff And Jitter"): uniform in [0, min(max, base·2ⁿ)). */
export function fullJitterDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number,
): number {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
}

export function connectToRelay(options: RelayConnectorOptions): RelayConnector {
  const base = options.url.replace(/\/+$/, "");
  const relayHost = new URL(base).host;
  const sidecarId = sidecarIdOf(options.identity.publicKey);
  const random = options.random ?? Math.random;
  const clientOptions = {
    perMessageDeflate: false,
    handshakeTimeout: 10_000,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  };
  let control: WebSocket | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let attempt = 0;
  let stopped = false;
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });

  const stop = (why: "aborted" | "replaced"): void => {
    if (stopped) return;
    stopped = true;
    clearTimeout(retryTimer);
    options.onState?.({ kind: "stopped", why });
    if (control === undefined || control.readyState === control.CLOSED) resolveDone();
    else control.close(1000, "sidecar stopping");
  };

  const accept = (connectionId: string): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      const data = new WebSocketClient(`${base}${RELAY_PATHS.accept(sidecarId, connectionId)}`, {
        ...clientOptions,
        maxPayload: 128 * 1024,
      });
      // Before it opens, an error is the failure to accept; after, the close that follows is
      // what the caller sees (an 'error' without a listener would throw out of the process).
      data.on("error", () => {});
      data.once("error", reject);
      data.once("open", () => {
        const signature = signRelayMessage(
          options.identity,
          acceptMessage(relayHost, sidecarId, connectionId),
        );
        data.send(JSON.stringify({ type: "accept", signature }));
        resolve(data);
      });
    });

  const connect = (): void => {
    if (stopped) return;
    const socket = new WebSocketClient(`${base}${RELAY_PATHS.sidecar}`, clientOptions);
    control = socket;
    socket.on("error", () => {}); // the close that follows is what counts
    socket.on("message", (data, isBinary) => {
      const message = parseRelayMessage(RelayToSidecar, data, isBinary);
      if (message === undefined) return;
      if (message.type === "challenge") {
        const signature = signRelayMessage(
          options.identity,
          registrationMessage(relayHost, message.challenge),
        );
        const publicKey = Buffer.from(options.identity.publicKey).toString("base64url");
        socket.send(JSON.stringify({ type: "register", sidecarId, publicKey, signature }));
      } else if (message.type === "registered") {
        attempt = 0; // a healthy connection: the next failure starts the backoff over
        options.onState?.({ kind: "registered", sidecarId });
      } else {
        const connectionId = message.connectionId;
        options.onIncoming({ connectionId, accept: () => accept(connectionId) });
      }
    });
    socket.once("close", (code) => {
      if (stopped) return resolveDone();
      if (code === RELAY_CLOSE.replaced) {
        // Another connection with this identity took over: fighting it would only flap.
        stop("replaced");
        return resolveDone();
      }
      const retryInMs = fullJitterDelay(
        attempt++,
        options.baseBackoffMs ?? 500,
        options.maxBackoffMs ?? 30_000,
        random,
      );
      options.onState?.({ kind: "disconnected", code, retryInMs });
      retryTimer = setTimeout(connect, retryInMs);
    });
  };

  const onAbort = (): void => stop("aborted");
  if (options.signal?.aborted === true) stop("aborted");
  else {
    options.signal?.addEventListener("abort", onAbort, { once: true });
    connect();
  }
  return {
    sidecarId,
    close() {
      options.signal?.removeEventListener("abort", onAbort);
      stop("aborted");
      return done;
    },
  };
}
