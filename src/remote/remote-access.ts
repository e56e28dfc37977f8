/**
 * A sidecar reachable through relays: a connector per relay keeps it registered; each device
 * that connects is answered (paired or recognised) and then served the sidecar's own API
 * through the tunnel, as requests to the sidecar's address with the sidecar's token set by
 * this end (a device never holds the token) and the device's id in `x-ocb-device`. Revoking a
 * device cuts its open connections at once and refuses its next handshake.
 */
import { connectToRelay, type RelayConnectorState } from "../relay/relay-connector.js";
import { serveTunnel, type TunnelTarget } from "../tunnel/tunnel-server.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { anySignalWithTimeout } from "../util/timeout-signal.js";
import type { Pairing, RemoteStatus } from "../wire/http.js";
import { answerDevice } from "./device-answer.js";
import { DeviceConnections } from "./device-connections.js";
import type { PairedDevices } from "./paired-devices.js";
import { pairingLink } from "./pairing-link.js";
import { PAIRING_TTL_MS, PairingOffers } from "./pairing-offers.js";
import { REVOKED_CLOSE } from "./remote-handshake.js";
import type { RemoteIdentity } from "./remote-identity.js";

/** The header that tells the sidecar's routes a request came from a device through a relay. */
export const DEVICE_HEADER = "x-ocb-device";
const HANDSHAKE_TIMEOUT_MS = 10_000;
/**
 * What one device connection may hold open on the sidecar's end: a client's shared socket, a
 * terminal or two and its calls fit many times over; its messages to the sidecar are small
 * (subscriptions, keystrokes ≤ 64 KiB; images go by HTTP). So a connection pins at most
 * 64 × 1 MiB of WebSocket messages being assembled.
 */
const DEVICE_TUNNEL_LIMITS = { maxConcurrentStreams: 64, maxWebSocketMessageBytes: 1024 * 1024 };
/** Handshakes at once, over every relay: a few devices connecting, not a flood. */
const MAX_HANDSHAKES = 16;

export interface RemoteAccessOptions {
  /** ws:// or wss:// base URLs of the relays, each kept registered (failover: any of them). */
  relays: readonly string[];
  identity: RemoteIdentity;
  devices: PairedDevices;
  /** Where the tunnel sends the devices' requests: the sidecar's own address. */
  target: TunnelTarget;
  /** The sidecar's token, set on every tunnelled request. */
  token: string;
  /** The page a pairing link opens (default: the first relay's address, as http(s)). */
  linkBase?: string;
  logger?: Logger;
  /** CA certificate(s), PEM, of relays with a self-signed certificate. */
  ca?: string | Buffer;
}

export class RemoteAccess {
  readonly #options: RemoteAccessOptions;
  readonly #logger: Logger;
  readonly #offers = new PairingOffers();
  readonly #stop = new AbortController();
  readonly #states = new Map<string, RelayConnectorState["kind"] | "connecting">();
  readonly #connections = new DeviceConnections();
  #handshakes = 0;
  readonly #connectors: { close(): Promise<void> }[];

  constructor(options: RemoteAccessOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#connectors = options.relays.map((url) => {
      this.#states.set(url, "connecting");
      return connectToRelay({
        url,
        identity: options.identity.relay,
        signal: this.#stop.signal,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        onState: (state) => {
          this.#states.set(url, state.kind);
          this.#logger.info("relay", { relay: url, state: state.kind });
        },
        onIncoming: (incoming) => {
          // A relay may announce clients without end: handshakes at once are bounded, the
          // others left unpicked (the relay then tells their clients 4004).
          if (this.#handshakes >= MAX_HANDSHAKES) {
            this.#logger.warn("relay client not picked up: too many handshakes at once", {
              relay: url,
            });
            return;
          }
          this.#handshakes++;
          incoming.accept().then(
            (socket) => this.#answer(socket),
            (error: unknown) => {
              this.#handshakes--;
              this.#logger.warn("relay pickup failed", { relay: url, error: String(error) });
            },
          );
        },
      });
    });
  }

  get sidecarId(): string {
    return this.#options.identity.sidecarId;
  }

  /** A one-time pairing link, good for ten minutes and one device. */
  createPairing(options: { linkBase?: string; ttlMs?: number } = {}): Pairing {
    const offer = this.#offers.create(options.ttlMs ?? PAIRING_TTL_MS);
    const base =
      options.linkBase ?? this.#options.linkBase ?? pageOfRelay(this.#options.relays[0] ?? "");
    const link = pairingLink(base, {
      relays: this.#options.relays,
      sidecarId: this.sidecarId,
      sidecarKey: this.#options.identity.noise.publicKey,
      pairingId: offer.pairingId,
      secret: offer.secret,
    });
    return { link, pairingId: offer.pairingId, expiresAt: new Date(offer.expiresAt).toISOString() };
  }

  status(): RemoteStatus {
    return {
      sidecarId: this.sidecarId,
      relays: this.#options.relays.map((url) => ({
        url,
        state: this.#states.get(url) ?? "connecting",
      })),
      devices: this.#options.devices.list().map((device) => ({
        id: device.id,
        name: device.name,
        pairedAt: device.pairedAt,
        connections: this.#connections.count(device.id),
      })),
    };
  }

  /** Forgets the device and cuts its connections; false when there is no such device. */
  revoke(deviceId: string): boolean {
    const known = this.#options.devices.revoke(deviceId);
    this.#connections.closeDevice(deviceId, REVOKED_CLOSE, "this device was revoked");
    if (known) this.#logger.info("device revoked", { device: deviceId });
    return known;
  }

  /** Stops every connector and cuts every device's connection. */
  async close(): Promise<void> {
    this.#stop.abort();
    this.#connections.closeAll(1001, "the sidecar stops");
    await Promise.all(this.#connectors.map((connector) => connector.close()));
  }

  async #answer(socket: Parameters<typeof answerDevice>[0]): Promise<void> {
    let answered: Awaited<ReturnType<typeof answerDevice>>;
    try {
      answered = await answerDevice(socket, {
        sidecarId: this.sidecarId,
        staticKeyPair: this.#options.identity.noise,
        devices: this.#options.devices,
        offers: this.#offers,
        signal: anySignalWithTimeout([this.#stop.signal], HANDSHAKE_TIMEOUT_MS),
      });
    } finally {
      this.#handshakes--;
    }
    if (answered === undefined) {
      this.#logger.info("device refused");
      return;
    }
    const { device, channel } = answered;
    this.#logger.info(answered.paired ? "device paired" : "device connected", {
      device: device.id,
    });
    this.#connections.add(device.id, channel);
    // Revoked between its handshake and now: it goes at once.
    if (this.#options.devices.list().every((known) => known.id !== device.id)) {
      channel.close(REVOKED_CLOSE, "this device was revoked");
      return;
    }
    const tunnel = serveTunnel(channel, {
      target: this.#options.target,
      setHeaders: { authorization: `Bearer ${this.#options.token}`, [DEVICE_HEADER]: device.id },
      dropHeaders: ["origin", "cookie"],
      limits: DEVICE_TUNNEL_LIMITS,
    });
    this.#connections.watchFirstFrame(channel);
    await tunnel.closed;
  }
}

/** A relay's ws(s):// address as the http(s):// page a pairing link opens. */
function pageOfRelay(relay: string): string {
  return `${relay.replace(/^ws/, "http").replace(/\/+$/, "")}/`;
}
