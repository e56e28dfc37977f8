/**
 * The sidecar's end of a remote handshake, on a data socket the relay joined to a device: a
 * pairing (XXpsk0 with an offer's secret) or a paired device coming back (IK). Anything that
 * does not verify closes the socket with `REFUSED_CLOSE` and a reason that names no secret.
 * A pairing's secret is spent only once message 3 has authenticated the device: a device
 * that fails half way leaves the offer for the right one (a wrong secret counts against it).
 */
import { NOISE_MAX_PLAINTEXT_LENGTH, NoiseHandshake, type NoiseKeyPair } from "../noise/index.js";
import type { MessageChannel } from "../tunnel/message-channel.js";
import type { BinarySocket } from "./binary-socket.js";
import { encryptedChannel } from "./encrypted-channel.js";
import type { PairedDevice, PairedDevices } from "./paired-devices.js";
import type { PairingOffers } from "./pairing-offers.js";
import {
  handshakePrologue,
  jsonBytes,
  PairingPayload,
  parseJsonBytes,
  REFUSED_CLOSE,
  readFirstMessage,
} from "./remote-handshake.js";
import { SocketInbox } from "./socket-inbox.js";

export interface AnswerContext {
  readonly sidecarId: string;
  readonly staticKeyPair: NoiseKeyPair;
  readonly devices: PairedDevices;
  readonly offers: PairingOffers;
  /** Bounds the whole handshake. */
  readonly signal: AbortSignal;
}

export interface AnsweredDevice {
  readonly device: PairedDevice;
  /** True when this handshake paired it. */
  readonly paired: boolean;
  readonly channel: MessageChannel;
}

/** Either a refusal, said to the device as the socket's close reason. */
class Refusal extends Error {}

/** The device and its encrypted channel, or undefined when refused (the socket is then closed). */
export async function answerDevice(
  socket: BinarySocket,
  context: AnswerContext,
): Promise<AnsweredDevice | undefined> {
  const inbox = new SocketInbox(socket);
  try {
    const first = readFirstMessage(await inbox.next(context.signal, "device's first message"));
    if (first === undefined) throw new Refusal("not a handshake of this version");
    const prologue = handshakePrologue(context.sidecarId);
    let handshake: NoiseHandshake;
    let device: PairedDevice;
    if (first.mode === "pair") {
      const secret = context.offers.secretOf(first.pairingId);
      if (secret === undefined)
        throw new Refusal(
          "this pairing link is unknown, expired or used: ask for a new one (ocb pair)",
        );
      handshake = new NoiseHandshake({
        pattern: "XXpsk0",
        initiator: false,
        prologue,
        staticKeyPair: context.staticKeyPair,
        psk: secret,
      });
      if (!tryRead(handshake, first.noiseMessage)) {
        context.offers.failed(first.pairingId);
        throw new Refusal("the pairing secret is wrong: scan the code again");
      }
      socket.send(handshake.writeMessage());
      const payload = readPayload(handshake, await inbox.next(context.signal, "device's keys"));
      const about = payload === undefined ? undefined : parseJsonBytes(PairingPayload, payload);
      const publicKey = handshake.remoteStaticKey;
      if (about === undefined || publicKey === undefined)
        throw new Refusal("the device's keys did not verify");
      // Still good (not spent by another device, not expired meanwhile), then the device is
      // written, then the offer spent, with no await between: a failed write leaves the offer.
      if (context.offers.secretOf(first.pairingId) === undefined) {
        throw new Refusal("this pairing link was used or expired meanwhile");
      }
      device = context.devices.add(publicKey, about.deviceName);
      context.offers.spend(first.pairingId);
    } else {
      handshake = new NoiseHandshake({
        pattern: "IK",
        initiator: false,
        prologue,
        staticKeyPair: context.staticKeyPair,
      });
      if (!tryRead(handshake, first.noiseMessage))
        throw new Refusal("the handshake did not verify");
      const known =
        handshake.remoteStaticKey === undefined
          ? undefined
          : context.devices.byPublicKey(handshake.remoteStaticKey);
      if (known === undefined)
        throw new Refusal("this device is not paired (or was revoked): pair it again");
      device = known;
      socket.send(handshake.writeMessage());
    }
    const session = handshake.split();
    socket.send(session.encrypt(jsonBytes({ type: "ready", deviceId: device.id })));
    const channel = encryptedChannel(socket, inbox, session, NOISE_MAX_PLAINTEXT_LENGTH);
    return { device, paired: first.mode === "pair", channel };
  } catch (error) {
    const reason = error instanceof Refusal ? error.message : "the handshake did not finish";
    if (inbox.closed === undefined) socket.close(REFUSED_CLOSE, reason);
    return undefined;
  }
}

function tryRead(handshake: NoiseHandshake, message: Uint8Array): boolean {
  return readPayload(handshake, message) !== undefined;
}

function readPayload(handshake: NoiseHandshake, message: Uint8Array): Uint8Array | undefined {
  try {
    return handshake.readMessage(message);
  } catch {
    return undefined;
  }
}
