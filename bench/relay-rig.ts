/**
 * A relay on loopback, a real sidecar reachable through it (`startSidecar`'s `remote`, what
 * `ocb serve --relay` does) and paired devices driving it with a `BridgeClient` over the
 * end-to-end encrypted tunnel: what bench (l) and the relay-cuts reliability scenario share.
 * With `cutting`, a TCP proxy sits on each side of the relay (device↔relay, relay↔sidecar)
 * whose `cut()` drops every connection open through it, as a network drop would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BridgeClient } from "../src/client/index.js";
import { type Relay, startRelay } from "../src/relay/relay-server.js";
import type { BinarySocketConstructor } from "../src/remote/binary-socket.js";
import { pairDevice } from "../src/remote/device-connection.js";
import { remoteTransport } from "../src/remote/remote-transport.js";
import type { Logger } from "../src/util/logger.js";
import { type CuttingProxy, startCuttingProxy } from "../test/support/cutting-proxy.js";
import { type RealSidecar, startRealSidecar } from "../test/support/real-sidecar.js";
import { within } from "../test/support/within.js";
import { NodeBinarySocket } from "../test/support/ws.js";

/**
 * `ws`'s client with an 'error' listener that counts: each is a relay connection refused or
 * cut during its upgrade. (The relay-cuts scenario found such an error crashing the device,
 * which had no listener; src/remote/socket-inbox.ts now listens, and a unit test holds it.)
 */
function deviceSocketClass(onError: () => void): BinarySocketConstructor {
  return class DeviceSocket extends NodeBinarySocket {
    constructor(url: string) {
      super(url);
      this.addEventListener("error", onError);
    }
  };
}
/** Bound on the sidecar's registration and on a pairing: a safety net, never a speed check. */
const SETUP_BOUND_MS = 60_000;

/** A paired device's typed client, every call through the relay. */
export interface Device {
  client: BridgeClient;
  /**
   * Another client on the same connection (one tunnel): a client's one WebSocket holds at most
   * the sidecar's `wsSubscriptions`, so a device following more sessions opens more sockets.
   */
  newClient(): BridgeClient;
  /** Closes its clients and its connection. */
  close(): void;
}

export interface RelayRig {
  relay: Relay;
  real: RealSidecar;
  /** The proxies on either side of the relay, with `cutting`. */
  cuts: { device: CuttingProxy; sidecar: CuttingProxy } | undefined;
  /** Errors of devices' sockets so far (see `deviceSocketClass`). */
  readonly deviceSocketErrors: number;
  /** Pairs a new device and connects it (lazily, on its first call) through the relay. */
  pairDevice(name: string): Promise<Device>;
  /** Closes the devices, the sidecar (its bridge, server, model), the proxies, the relay. */
  close(): Promise<void>;
}

export interface RelayRigOptions {
  /** Names the sidecar's tracked server. */
  label: string;
  cutting?: boolean;
  /** The sidecar's logger (default: its log lines on stderr). */
  logger?: Logger;
  /** The sidecar's store file (default: in memory). */
  storeFile?: string;
}

const wsOf = (url: string) => url.replace(/^http/, "ws");
const httpOf = (url: string) => url.replace(/^ws/, "http");

export async function startRelayRig(options: RelayRigOptions): Promise<RelayRig> {
  const dir = mkdtempSync(join(tmpdir(), "ocb-relay-rig-"));
  const devices: Device[] = [];
  let deviceSocketErrors = 0;
  const DeviceSocket = deviceSocketClass(() => {
    deviceSocketErrors += 1;
  });
  const started: { relay?: Relay; real?: RealSidecar; proxies: CuttingProxy[] } = { proxies: [] };
  const close = async (): Promise<void> => {
    for (const device of devices) device.close();
    await started.real?.close();
    for (const proxy of started.proxies) await proxy.close();
    await started.relay?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Every connection comes from 127.0.0.1 here, many at once, and cuts reconnect often.
    const relay = await startRelay({
      limits: { attemptsPerMinutePerIp: 100_000, concurrentPerIp: 10_000 },
    });
    started.relay = relay;
    let cuts: RelayRig["cuts"];
    if (options.cutting === true) {
      cuts = {
        device: await startCuttingProxy(httpOf(relay.url)),
        sidecar: await startCuttingProxy(httpOf(relay.url)),
      };
      started.proxies.push(cuts.device, cuts.sidecar);
    }
    const real = await startRealSidecar({
      label: options.label,
      web: false,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.storeFile === undefined ? {} : { storeFile: options.storeFile }),
      remote: {
        relays: [cuts === undefined ? relay.url : wsOf(cuts.sidecar.url)],
        identityPath: join(dir, "relay-identity.json"),
      },
    });
    started.real = real;
    await within(registered(real), "the sidecar's registration at the relay", SETUP_BOUND_MS);
    const deviceRelay = cuts === undefined ? relay.url : wsOf(cuts.device.url);
    return {
      relay,
      real,
      cuts,
      get deviceSocketErrors() {
        return deviceSocketErrors;
      },
      async pairDevice(name) {
        const { link } = await real.client.createPairing();
        const { paired, connection } = await within(
          pairDevice(link, { deviceName: name, WebSocket: DeviceSocket }),
          `pairing ${name}`,
          SETUP_BOUND_MS,
        );
        connection.close();
        const transport = remoteTransport(
          { ...paired, relays: [deviceRelay] },
          { WebSocket: DeviceSocket },
        );
        const clients: BridgeClient[] = [];
        const newClient = () => {
          // The URL is a name only: every call goes through the tunnel, whose sidecar end sets the token.
          const client = new BridgeClient({
            url: "http://sidecar.through-the-relay",
            token: "not-the-sidecar-token-0123456789",
            fetch: transport.fetch,
            WebSocket: transport.WebSocket,
          });
          clients.push(client);
          return client;
        };
        const device = {
          client: newClient(),
          newClient,
          close: () => {
            for (const client of clients) client.close();
            transport.close();
          },
        };
        devices.push(device);
        return device;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function registered(real: RealSidecar): Promise<void> {
  while ((await real.client.remoteStatus()).relays[0]?.state !== "registered") {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
