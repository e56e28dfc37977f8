/**
 * The device's end of a remote connection: a WebSocket to a relay, a Noise handshake with the
 * sidecar through it (XXpsk0 to pair, IK once paired), then the tunnel of the sidecar's API
 * over the encrypted channel. Relays are tried in order: one that is down or does not reach
 * the sidecar gives way to the next; a refusal by the sidecar itself ends the attempt (another
 * relay leads to the same sidecar, which would refuse again).
 */
import { equalBytes } from "@noble/ciphers/utils.js";
import {
  generateNoiseKeyPair,
  NOISE_MAX_PLAINTEXT_LENGTH,
  NoiseHandshake,
} from "../noise/index.js";
import { RELAY_PATHS } from "../relay/relay-paths.js";
import { openTunnelClient, type TunnelClient } from "../tunnel/tunnel-client.js";
import { anySignalWithTimeout } from "../util/timeout-signal.js";
import type { BinarySocket, BinarySocketConstructor } from "./binary-socket.js";
import { encryptedChannel } from "./encrypted-channel.js";
import type { PairedSidecar } from "./paired-sidecar.js";
import { parsePairingLink } from "./pairing-link.js";
import { RemoteAccessError } from "./remote-errors.js";
import {
  deviceIdOf,
  firstMessage,
  handshakePrologue,
  jsonBytes,
  parseJsonBytes,
  REFUSED_CLOSE,
  ReadyMessage,
} from "./remote-handshake.js";
import { SocketInbox } from "./socket-inbox.js";

export interface DeviceConnectOptions {
  /** The WebSocket to reach relays with: the browser's, or `ws`'s in Node. */
  WebSocket: BinarySocketConstructor;
  signal?: AbortSignal;
  /** Bound on reaching the relay and the whole handshake, per relay. Default 15 s. */
  timeoutMs?: number;
}

export interface RemoteConnection {
  /** The relay this connection goes through. */
  readonly relay: string;
  readonly deviceId: string;
  /** The sidecar's API: pass `fetch` and `WebSocket` to a BridgeClient. */
  readonly tunnel: TunnelClient;
  close(): void;
  /** Resolves when the connection is gone (closed, cut, or revoked: `code` says which). */
  readonly closed: Promise<{ code: number; reason: string }>;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** Pairs this device with the sidecar of `link` (what `ocb pair` shows); the link's secret is then spent. */
export async function pairDevice(
  link: string,
  options: DeviceConnectOptions & { deviceName: string },
): Promise<{ paired: PairedSidecar; connection: RemoteConnection }> {
  const offer = parsePairingLink(link);
  const deviceKey = generateNoiseKeyPair();
  const paired: PairedSidecar = {
    relays: offer.relays,
    sidecarId: offer.sidecarId,
    sidecarKey: offer.sidecarKey,
    deviceKey,
    deviceId: deviceIdOf(deviceKey.publicKey),
  };
  const connection = await throughRelays(paired, options, async (socket, inbox, signal) => {
    const handshake = new NoiseHandshake({
      pattern: "XXpsk0",
      initiator: true,
      prologue: handshakePrologue(offer.sidecarId),
      staticKeyPair: deviceKey,
      psk: offer.secret,
    });
    socket.send(firstMessage("pair", handshake.writeMessage(), offer.pairingId));
    readOrRefuse(handshake, await inbox.next(signal, "sidecar's answer"), socket);
    if (!equalBytes(handshake.remoteStaticKey ?? new Uint8Array(), offer.sidecarKey)) {
      socket.close(REFUSED_CLOSE, "not the sidecar the link names");
      throw new RemoteAccessError(
        "refused",
        "the sidecar that answered is not the one the link names (its key differs): do not use this relay or link",
      );
    }
    socket.send(handshake.writeMessage(jsonBytes({ deviceName: options.deviceName })));
    return handshake;
  });
  return { paired, connection };
}

/** Connects a paired device to its sidecar (Noise IK: one round trip). */
export function connectDevice(
  paired: PairedSidecar,
  options: DeviceConnectOptions,
): Promise<RemoteConnection> {
  return throughRelays(paired, options, async (socket, inbox, signal) => {
    const handshake = new NoiseHandshake({
      pattern: "IK",
      initiator: true,
      prologue: handshakePrologue(paired.sidecarId),
      staticKeyPair: paired.deviceKey,
      remoteStaticKey: paired.sidecarKey,
    });
    socket.send(firstMessage("resume", handshake.writeMessage()));
    readOrRefuse(handshake, await inbox.next(signal, "sidecar's answer"), socket);
    return handshake;
  });
}

type Handshaker = (
  socket: BinarySocket,
  inbox: SocketInbox,
  signal: AbortSignal,
) => Promise<NoiseHandshake>;

async function throughRelays(
  paired: PairedSidecar,
  options: DeviceConnectOptions,
  shake: Handshaker,
): Promise<RemoteConnection> {
  const failures: string[] = [];
  for (const relay of paired.relays) {
    options.signal?.throwIfAborted();
    const signal = anySignalWithTimeout(
      options.signal === undefined ? [] : [options.signal],
      options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    const socket = new options.WebSocket(
      `${relay.replace(/\/+$/, "")}${RELAY_PATHS.connect(paired.sidecarId)}`,
    );
    const inbox = new SocketInbox(socket);
    try {
      await opened(socket, inbox, signal);
      const handshake = await shake(socket, inbox, signal);
      const session = handshake.split();
      const ready = parseJsonBytes(
        ReadyMessage,
        session.decrypt(await inbox.next(signal, "sidecar's welcome")),
      );
      if (ready === undefined)
        throw new RemoteAccessError("broken", "the sidecar's welcome is not one");
      const channel = encryptedChannel(socket, inbox, session, NOISE_MAX_PLAINTEXT_LENGTH);
      const closed = new Promise<{ code: number; reason: string }>((resolve) => {
        channel.onClose((code, reason) => resolve({ code, reason }));
      });
      const tunnel = openTunnelClient(channel);
      return {
        relay,
        deviceId: ready.deviceId,
        tunnel,
        closed,
        close: () => channel.close(1000, "closed by the device"),
      };
    } catch (error) {
      if (socket.readyState !== 3) socket.close(1000, "handshake ended");
      if (error instanceof RemoteAccessError && error.reason === "refused") throw error;
      if (options.signal?.aborted === true) throw error;
      failures.push(`${relay}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new RemoteAccessError(
    "unreachable",
    `no relay reached the sidecar (is \`ocb serve --relay\` running?): ${failures.join("; ")}`,
  );
}

function readOrRefuse(handshake: NoiseHandshake, message: Uint8Array, socket: BinarySocket): void {
  try {
    handshake.readMessage(message);
  } catch (error) {
    socket.close(REFUSED_CLOSE, "the handshake did not verify");
    throw new RemoteAccessError(
      "refused",
      "the sidecar's answer did not verify: this is not the paired sidecar, or something on the way altered it",
      { cause: error },
    );
  }
}

function opened(socket: BinarySocket, inbox: SocketInbox, signal: AbortSignal): Promise<void> {
  if (socket.readyState === 1) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const fail = () => {
      const close = inbox.closed;
      reject(
        new RemoteAccessError(
          signal.aborted ? "timeout" : "unreachable",
          close === undefined
            ? "the relay did not answer in time"
            : `the relay closed the connection (${close.code}${close.reason === "" ? "" : `: ${close.reason}`})`,
        ),
      );
    };
    socket.addEventListener("open", () => resolve());
    inbox.onClose(fail);
    signal.addEventListener("abort", fail, { once: true });
  });
}
