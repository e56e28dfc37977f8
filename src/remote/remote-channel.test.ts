/**
 * The remote handshake and channel, device and sidecar both real (`pairDevice`/`connectDevice`
 * against `answerDevice` and the tunnel to an in-process HTTP server), through a relay in
 * memory: an honest one, and ones that tamper with the frames, replay or reorder them, or put
 * another sidecar in the link's place. Both ends refuse what does not verify.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryRelay, type Tamper } from "../../test/support/memory-relay.js";
import { NodeBinarySocket } from "../../test/support/ws.js";
import { NoiseHandshake } from "../noise/index.js";
import { generateRelayIdentity } from "../relay/relay-identity.js";
import { serveTunnel } from "../tunnel/tunnel-server.js";
import type { BinarySocket } from "./binary-socket.js";
import { answerDevice } from "./device-answer.js";
import { connectDevice, pairDevice } from "./device-connection.js";
import { encryptedChannel } from "./encrypted-channel.js";
import { PairedDevices } from "./paired-devices.js";
import type { PairedSidecar } from "./paired-sidecar.js";
import { pairingLink } from "./pairing-link.js";
import { PairingOffers } from "./pairing-offers.js";
import { BROKEN_CLOSE, REFUSED_CLOSE } from "./remote-handshake.js";
import { type RemoteIdentity, remoteIdentityOf } from "./remote-identity.js";
import { SocketInbox } from "./socket-inbox.js";

let server: Server;
let port: number;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ocb-remote-channel-"));
  server = createServer((request, response) => {
    response.setHeader("content-type", "text/plain");
    response.end(`${request.method} ${request.url} ${request.headers.authorization ?? "-"}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** A sidecar's end in memory: its identity, devices, offers, and what became of each socket. */
function sidecarEnd(identity: RemoteIdentity = remoteIdentityOf(generateRelayIdentity())) {
  const devices = PairedDevices.load(join(mkdtempSync(join(dir, "sidecar-")), "devices.json"));
  const offers = new PairingOffers();
  const closes: { code: number; reason: string }[] = [];
  const answer = (socket: BinarySocket): void => {
    socket.addEventListener("close", (event) => closes.push(event));
    void answerDevice(socket, {
      sidecarId: identity.sidecarId,
      staticKeyPair: identity.noise,
      devices,
      offers,
      signal: AbortSignal.timeout(5_000),
    }).then((answered) => {
      if (answered === undefined) return;
      serveTunnel(answered.channel, {
        target: { host: "127.0.0.1", port },
        setHeaders: { authorization: "Bearer sidecar-token" },
      });
    });
  };
  const link = (offer = offers.create()) =>
    pairingLink("https://pair.example/", {
      relays: ["ws://relay.invalid"],
      sidecarId: identity.sidecarId,
      sidecarKey: identity.noise.publicKey,
      pairingId: offer.pairingId,
      secret: offer.secret,
    });
  return { identity, devices, offers, closes, answer, link };
}

async function pairedWith(end: ReturnType<typeof sidecarEnd>): Promise<PairedSidecar> {
  const relay = memoryRelay(end.answer);
  const { paired, connection } = await pairDevice(end.link(), {
    deviceName: "phone",
    WebSocket: relay.WebSocket,
  });
  connection.close();
  return paired;
}

async function text(response: Response): Promise<string> {
  return await response.text();
}

describe("pairing and reconnecting", () => {
  it("pairs, then reconnects with IK; the tunnel reaches the target with the sidecar's token", async () => {
    const end = sidecarEnd();
    const paired = await pairedWith(end);
    expect(end.devices.list().map((device) => device.name)).toEqual(["phone"]);
    const relay = memoryRelay(end.answer);
    const connection = await connectDevice(paired, { WebSocket: relay.WebSocket });
    const response = await connection.tunnel.fetch("http://anything/v1/x?y=1", {
      headers: { authorization: "Bearer the-device-guess" },
    });
    expect(await text(response)).toBe("GET /v1/x?y=1 Bearer sidecar-token");
    expect(relay.opened).toEqual([`ws://relay.invalid/v1/relay/connect/${end.identity.sidecarId}`]);
    connection.close();
  });

  it("refuses a wrong secret (and burns the offer after three), and a used one", async () => {
    const end = sidecarEnd();
    const offer = end.offers.create();
    const wrong = end.link({ ...offer, secret: new Uint8Array(32).fill(7) });
    for (let attempt = 0; attempt < 3; attempt++) {
      const relay = memoryRelay(end.answer);
      await expect(
        pairDevice(wrong, { deviceName: "guess", WebSocket: relay.WebSocket }),
      ).rejects.toMatchObject({ reason: "refused" });
    }
    expect(end.closes.every((close) => close.code === REFUSED_CLOSE)).toBe(true);
    // The right secret now finds the offer burnt.
    const relay = memoryRelay(end.answer);
    await expect(
      pairDevice(end.link(offer), { deviceName: "late", WebSocket: relay.WebSocket }),
    ).rejects.toMatchObject({ reason: "refused" });

    const fresh = end.link();
    const first = await pairDevice(fresh, {
      deviceName: "one",
      WebSocket: memoryRelay(end.answer).WebSocket,
    });
    first.connection.close();
    await expect(
      pairDevice(fresh, { deviceName: "two", WebSocket: memoryRelay(end.answer).WebSocket }),
    ).rejects.toMatchObject({ reason: "refused" });
    expect(end.devices.list().map((device) => device.name)).toEqual(["one"]);
  });

  it("a device refuses a sidecar that is not the one its link pins", async () => {
    const real = sidecarEnd();
    // An impostor answers with its own key, knowing the offer's secret and the real id.
    const impostor = sidecarEnd({
      ...remoteIdentityOf(generateRelayIdentity()),
      sidecarId: real.identity.sidecarId,
    });
    const offer = real.offers.create();
    impostor.offers.create = () => offer;
    impostor.offers.secretOf = () => offer.secret;
    const relay = memoryRelay(impostor.answer);
    await expect(
      pairDevice(real.link(offer), { deviceName: "phone", WebSocket: relay.WebSocket }),
    ).rejects.toMatchObject({
      reason: "refused",
      message: expect.stringContaining("not the one the link names"),
    });
    expect(impostor.devices.list()).toEqual([]);
  });

  it("refuses an unknown device, a revoked one, and a handshake meant for another sidecar", async () => {
    const end = sidecarEnd();
    const other = sidecarEnd();
    const paired = await pairedWith(other);
    // Same relay path, the other sidecar's key: IK fails at the sidecar's first read.
    const stranger = {
      ...paired,
      sidecarId: end.identity.sidecarId,
      sidecarKey: end.identity.noise.publicKey,
    };
    await expect(
      connectDevice(stranger, { WebSocket: memoryRelay(end.answer).WebSocket }),
    ).rejects.toMatchObject({ reason: "refused" });
    // The other sidecar's device, its id bound in the prologue, sent to this one.
    await expect(
      connectDevice(
        { ...paired, sidecarId: end.identity.sidecarId },
        { WebSocket: memoryRelay(other.answer).WebSocket },
      ),
    ).rejects.toMatchObject({ reason: "refused" });
    expect(other.devices.revoke(paired.deviceId)).toBe(true);
    await expect(
      connectDevice(paired, { WebSocket: memoryRelay(other.answer).WebSocket }),
    ).rejects.toMatchObject({ reason: "refused" });
  });
});

describe("several relays", () => {
  it("a device tries them in order: one that does not reach the sidecar gives way to the next", async () => {
    const end = sidecarEnd();
    const paired = await pairedWith(end);
    const good = memoryRelay(end.answer);
    const tried: string[] = [];
    // The first relay answers as an `ocb relay` does for an offline sidecar: 4004 at once.
    const Relays = class {
      constructor(url: string) {
        tried.push(url);
        const relay = url.startsWith("ws://down.invalid")
          ? memoryRelay((socket) => socket.close(4004, "not available"))
          : good;
        // A constructor may return another object: the socket of the relay the URL names.
        // biome-ignore lint/correctness/noConstructorReturn: a stand-in for `new WebSocket(url)`
        return new relay.WebSocket(url);
      }
    };
    const Either = Relays as unknown as typeof good.WebSocket;
    const connection = await connectDevice(
      { ...paired, relays: ["ws://down.invalid", "ws://up.invalid"] },
      { WebSocket: Either },
    );
    expect(connection.relay).toBe("ws://up.invalid");
    expect(tried.map((url) => new URL(url).host)).toEqual(["down.invalid", "up.invalid"]);
    expect(await text(await connection.tunnel.fetch("http://x/ok", {}))).toContain("GET /ok");
    connection.close();
    // None reaching it: one error naming each relay's failure.
    const none = connectDevice({ ...paired, relays: ["ws://down.invalid"] }, { WebSocket: Either });
    await expect(none).rejects.toMatchObject({
      reason: "unreachable",
      message: expect.stringContaining(
        "ws://down.invalid: the connection closed before the sidecar's answer: not available (4004)",
      ),
    });
  });
});

describe("a relay whose connection is reset", () => {
  it("during the WebSocket handshake: the connect fails as unreachable, nothing is thrown out of the process", async () => {
    const resetting = createNetServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((resolve) => resetting.listen(0, "127.0.0.1", resolve));
    try {
      const { port: relayPort } = resetting.address() as AddressInfo;
      const end = sidecarEnd();
      const paired = await pairedWith(end);
      await expect(
        connectDevice(
          { ...paired, relays: [`ws://127.0.0.1:${relayPort}`] },
          { WebSocket: NodeBinarySocket },
        ),
      ).rejects.toMatchObject({ reason: "unreachable" });
    } finally {
      await new Promise((resolve) => resetting.close(resolve));
    }
  });
});

describe("the socket under the channel", () => {
  /** A socket as a browser's behaves: close() throws on codes other than 1000 and 3000-4999. */
  function browserLikeSocket() {
    const listeners = new Map<string, ((event: never) => void)[]>();
    const closes: { code: number; reason: string }[] = [];
    const socket = {
      binaryType: "blob",
      readyState: 1,
      bufferedAmount: 0,
      closes,
      send() {},
      close(code = 1000, reason = "") {
        if (code !== 1000 && (code < 3000 || code > 4999)) {
          throw new DOMException(`close(${code})`, "InvalidAccessError");
        }
        closes.push({ code, reason });
      },
      addEventListener(type: string, listener: (event: never) => void) {
        listeners.set(type, [...(listeners.get(type) ?? []), listener]);
      },
      emit(type: string, event: unknown) {
        for (const listener of listeners.get(type) ?? [])
          (listener as (event: unknown) => void)(event);
      },
    };
    return socket;
  }

  function session() {
    const [initiator, responder] = [true, false].map(
      (isInitiator) => new NoiseHandshake({ pattern: "NN", initiator: isInitiator }),
    );
    if (initiator === undefined || responder === undefined) throw new Error("no handshakes");
    responder.readMessage(initiator.writeMessage());
    initiator.readMessage(responder.writeMessage());
    return initiator.split();
  }

  it("a tunnel close with a code a browser refuses goes out as 4400, and its detail stays on this side", () => {
    const socket = browserLikeSocket();
    const channel = encryptedChannel(socket, new SocketInbox(socket), session(), 1000);
    const heard: { code: number; reason: string }[] = [];
    channel.onClose((code, reason) => heard.push({ code, reason }));
    channel.close(1002, "tunnel protocol error: stream 7 sent a window of 9 bytes");
    expect(heard).toEqual([
      { code: 1002, reason: "tunnel protocol error: stream 7 sent a window of 9 bytes" },
    ]);
    expect(socket.closes).toEqual([
      { code: BROKEN_CLOSE, reason: "a frame did not decrypt or broke the protocol" },
    ]);
  });

  it("more frames than a handshake takes, before the channel reads, close the socket as broken", () => {
    const socket = browserLikeSocket();
    new SocketInbox(socket);
    for (let frame = 0; frame < 9; frame++) socket.emit("message", { data: new ArrayBuffer(8) });
    expect(socket.closes).toEqual([
      { code: BROKEN_CLOSE, reason: "too many frames during the handshake" },
    ]);
  });
});

describe("a relay that tampers with the channel", () => {
  /** Connects a paired device through `tamper`, makes one call, and says how each end closed. */
  async function throughTamper(tamper: Tamper) {
    const end = sidecarEnd();
    const paired = await pairedWith(end);
    end.closes.length = 0;
    const relay = memoryRelay(end.answer, tamper);
    const connection = await connectDevice(paired, { WebSocket: relay.WebSocket });
    const call = connection.tunnel.fetch("http://anything/v1/x", {}).then(text);
    const deviceClose = await connection.closed;
    await expect(call).rejects.toThrow();
    return { deviceClose, sidecarCloses: end.closes };
  }
  // Frames 0 and 1 to the sidecar are the handshake's; 0 and 1 to the device its answer and welcome.
  const cases: [string, Tamper][] = [
    [
      "a flipped bit in a device's frame",
      (direction, index, frame) => {
        if (direction === "to-sidecar" && index === 1)
          frame[frame.length - 5] = (frame[frame.length - 5] ?? 0) ^ 1;
        return [frame];
      },
    ],
    [
      "a flipped bit in the sidecar's answer",
      (direction, index, frame) => {
        if (direction === "to-device" && index === 2) frame[3] = (frame[3] ?? 0) ^ 0x80;
        return [frame];
      },
    ],
    [
      "a device's frame replayed",
      (direction, index, frame) =>
        direction === "to-sidecar" && index === 1 ? [frame, frame] : [frame],
    ],
    [
      "a sidecar's frame replayed",
      (direction, index, frame) =>
        direction === "to-device" && index === 2 ? [frame, frame] : [frame],
    ],
  ];
  let held: Uint8Array | undefined;
  cases.push([
    "the sidecar's frames reordered",
    (direction, index, frame) => {
      if (direction !== "to-device" || index < 2) return [frame];
      if (index === 2) {
        held = frame;
        return [];
      }
      const out = held === undefined ? [frame] : [frame, held];
      held = undefined;
      return out;
    },
  ]);

  it.each(cases)("%s: the channel is closed as broken", async (_what, tamper) => {
    const { deviceClose, sidecarCloses } = await throughTamper(tamper);
    expect(deviceClose.code).toBe(BROKEN_CLOSE);
    expect(sidecarCloses.map((close) => close.code)).toEqual([BROKEN_CLOSE]);
  });
});
