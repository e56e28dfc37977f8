/**
 * The relay on real loopback sockets: registration, joining a client to a sidecar's data
 * socket, the limits and the refusals, and what it logs. Every timeout is configured short;
 * none is slept out.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import {
  connectClient,
  joinedPeers,
  openPeer,
  type Peer,
  peerOf,
  registeredSidecar,
} from "../../test/support/relay-peers.js";
import { within } from "../../test/support/within.js";
import { RELAY_CLOSE } from "./relay-close-codes.js";
import {
  generateRelayIdentity,
  registrationMessage,
  sidecarIdOf,
  signRelayMessage,
} from "./relay-identity.js";
import type { RelayLimits } from "./relay-limits.js";
import { RELAY_PATHS } from "./relay-paths.js";
import { type Relay, type RelayOptions, startRelay } from "./relay-server.js";

const relays: Relay[] = [];
const closers: (() => Promise<void>)[] = [];

async function relay(
  limits: Partial<RelayLimits> = {},
  options: RelayOptions = {},
): Promise<Relay> {
  const started = await startRelay({ ...options, limits });
  relays.push(started);
  return started;
}

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const started of relays.splice(0)) await started.close();
});

async function sidecarOn(url: string) {
  const sidecar = await registeredSidecar(url);
  closers.push(() => sidecar.connector.close());
  return sidecar;
}

/** Registers by hand: `tamper` changes the answer to the challenge before it is sent. */
async function registerByHand(
  url: string,
  tamper: (answer: { sidecarId: string; publicKey: string; signature: string }) => void,
): Promise<{ code: number }> {
  const control = await openPeer(url, RELAY_PATHS.sidecar);
  const challenge = JSON.parse((await control.next("the challenge")).toString()).challenge;
  const identity = generateRelayIdentity();
  const host = new URL(url).host;
  const answer = {
    sidecarId: sidecarIdOf(identity.publicKey),
    publicKey: Buffer.from(identity.publicKey).toString("base64url"),
    signature: signRelayMessage(identity, registrationMessage(host, challenge)),
  };
  tamper(answer);
  control.socket.send(JSON.stringify({ type: "register", ...answer }));
  return within(control.closed, "the refusal");
}

describe("registration", () => {
  it("registers a sidecar that signs the challenge with the key of its id", async () => {
    const { url } = await relay();
    const sidecar = await sidecarOn(url);
    expect(sidecar.states).toEqual(["registered"]);
  });

  it("refuses a bad signature and an id that is not the key's, with 4401", async () => {
    const { url } = await relay();
    const badSignature = await registerByHand(url, (answer) => {
      answer.signature = signRelayMessage(generateRelayIdentity(), new Uint8Array([1]));
    });
    expect(badSignature.code).toBe(RELAY_CLOSE.badRegistration);
    const wrongId = await registerByHand(url, (answer) => {
      answer.sidecarId = sidecarIdOf(generateRelayIdentity().publicKey);
    });
    expect(wrongId.code).toBe(RELAY_CLOSE.badRegistration);
  });

  it("refuses a registration that does not come in time, with 4401", async () => {
    const { url } = await relay({ handshakeTimeoutMs: 100 });
    const control = await openPeer(url, RELAY_PATHS.sidecar);
    expect((await within(control.closed, "the timeout")).code).toBe(RELAY_CLOSE.badRegistration);
  });

  it("replaces an older control connection of the same sidecar (4001), which stops retrying", async () => {
    const { url } = await relay();
    const first = await sidecarOn(url);
    const second = await registeredSidecar(url, first.identity);
    closers.push(() => second.connector.close());
    await within(
      (async () => {
        while (!first.states.includes("stopped:replaced"))
          await new Promise((r) => setTimeout(r, 10));
      })(),
      "the first to be replaced",
    );
    // The newer one serves clients.
    const { client, data } = await joinedPeers(url, second);
    client.socket.send(Buffer.from([7]));
    expect([...(await data.next())]).toEqual([7]);
  });
});

describe("joining a client to a sidecar", () => {
  it("carries binary frames both ways unchanged and in order, up to the frame limit", async () => {
    const { url, limits } = await relay();
    const sidecar = await sidecarOn(url);
    const { client, data } = await joinedPeers(url, sidecar);
    const sent = Array.from({ length: 200 }, (_, index) =>
      randomBytes(index % 10 === 0 ? limits.maxFrameBytes : 1 + index * 13),
    );
    for (const frame of sent) client.socket.send(frame);
    for (const frame of sent) expect((await data.next()).equals(frame)).toBe(true);
    const back = sent.slice(0, 50).reverse();
    for (const frame of back) data.socket.send(frame);
    for (const frame of back) expect((await client.next()).equals(frame)).toBe(true);
  });

  it("passes on what a client sends before the sidecar picks it up", async () => {
    const { url } = await relay();
    const sidecar = await sidecarOn(url);
    const client = await connectClient(url, sidecar.sidecarId);
    client.socket.send(Buffer.from("early"));
    const data = peerOf(await (await sidecar.incoming()).accept());
    expect((await data.next()).toString()).toBe("early");
  });

  it("closes a frame over the limit with 1009, and the other side with it", async () => {
    const { url, limits } = await relay({ maxFrameBytes: 1024 });
    const sidecar = await sidecarOn(url);
    const { client, data } = await joinedPeers(url, sidecar);
    client.socket.send(randomBytes(limits.maxFrameBytes + 1));
    expect((await within(client.closed, "the client's close")).code).toBe(RELAY_CLOSE.tooBig);
    expect((await within(data.closed, "the data socket's close")).code).toBe(RELAY_CLOSE.goingAway);
  });

  it("refuses a text frame from a client with 1003", async () => {
    const { url } = await relay();
    const sidecar = await sidecarOn(url);
    const { client, data } = await joinedPeers(url, sidecar);
    client.socket.send("plain text");
    expect((await within(client.closed, "the client's close")).code).toBe(RELAY_CLOSE.unsupported);
    await within(data.closed, "the data socket's close");
  });

  it("closes the data socket when the client closes, and the client when the data socket does", async () => {
    const { url } = await relay();
    const sidecar = await sidecarOn(url);
    const first = await joinedPeers(url, sidecar);
    first.client.socket.close(4321, "bye");
    expect((await within(first.data.closed, "the data socket's close")).code).toBe(4321);
    const second = await joinedPeers(url, sidecar);
    second.data.socket.close(1000);
    expect((await within(second.client.closed, "the client's close")).code).toBe(1000);
  });

  it("refuses an unknown sidecar exactly as an offline one (4004)", async () => {
    const { url } = await relay();
    const sidecar = await registeredSidecar(url);
    await sidecar.connector.close();
    const offline = await within((await connectClient(url, sidecar.sidecarId)).closed, "offline");
    const unknownId = sidecarIdOf(generateRelayIdentity().publicKey);
    const unknown = await within((await connectClient(url, unknownId)).closed, "unknown");
    const malformed = await within((await connectClient(url, "not-an-id")).closed, "malformed");
    expect(offline).toEqual({ code: RELAY_CLOSE.notAvailable, reason: "not available" });
    expect(unknown).toEqual(offline);
    expect(malformed).toEqual(offline);
  });

  it("refuses a client the sidecar does not pick up in time (4004)", async () => {
    const { url } = await relay({ pickupTimeoutMs: 100 });
    const sidecar = await sidecarOn(url);
    const client = await connectClient(url, sidecar.sidecarId);
    await sidecar.incoming(); // and never accepted
    expect((await within(client.closed, "the pickup timeout")).code).toBe(RELAY_CLOSE.notAvailable);
  });

  it("refuses a data socket whose acceptance is not signed by the sidecar (4401)", async () => {
    const { url } = await relay();
    const sidecar = await sidecarOn(url);
    const client = await connectClient(url, sidecar.sidecarId);
    const { connectionId } = await sidecar.incoming();
    const forged = await openPeer(url, RELAY_PATHS.accept(sidecar.sidecarId, connectionId));
    const signature = signRelayMessage(generateRelayIdentity(), new Uint8Array([1]));
    forged.socket.send(JSON.stringify({ type: "accept", signature }));
    expect((await within(forged.closed, "the refusal")).code).toBe(RELAY_CLOSE.badRegistration);
    expect(client.socket.readyState).toBe(client.socket.OPEN);
  });
});

describe("limits", () => {
  it("bounds the clients of one sidecar, joined and pending (4029)", async () => {
    const { url } = await relay({ maxClientsPerSidecar: 2, maxPendingPerSidecar: 1 });
    const sidecar = await sidecarOn(url);
    await joinedPeers(url, sidecar);
    await connectClient(url, sidecar.sidecarId); // pending
    const overPending = await connectClient(url, sidecar.sidecarId);
    expect((await within(overPending.closed, "the refusal")).code).toBe(RELAY_CLOSE.limit);
    await (await sidecar.incoming()).accept();
    const overClients = await connectClient(url, sidecar.sidecarId);
    expect((await within(overClients.closed, "the refusal")).code).toBe(RELAY_CLOSE.limit);
  });

  it("bounds the open connections of one address (4029), and frees a slot on close", async () => {
    const { url } = await relay({ concurrentPerIp: 2 });
    const sidecar = await sidecarOn(url); // the control socket is one
    const client = await connectClient(url, sidecar.sidecarId);
    const over = await connectClient(url, sidecar.sidecarId);
    expect((await within(over.closed, "the refusal")).code).toBe(RELAY_CLOSE.limit);
    client.socket.close();
    await within(client.closed, "the close");
    // The relay frees the slot once its side of the TCP connection has closed too.
    const admitted = async (): Promise<boolean> => {
      const again = await connectClient(url, sidecar.sidecarId);
      const refused = await Promise.race([
        again.closed.then(({ code }) => code === RELAY_CLOSE.limit),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 50)),
      ]);
      again.socket.close();
      await within(again.closed, "the probe's close");
      return !refused;
    };
    await within(
      (async () => {
        while (!(await admitted())) await new Promise((resolve) => setTimeout(resolve, 20));
      })(),
      "a freed slot",
    );
  });

  it("bounds the sidecars registered at once (4029)", async () => {
    const { url } = await relay({ maxSidecars: 1 });
    await sidecarOn(url);
    const refused = await registerByHand(url, () => {});
    expect(refused.code).toBe(RELAY_CLOSE.limit);
  });

  it("counts a trusted proxy's clients by their X-Forwarded-For, and nobody else's", async () => {
    const { url } = await relay({ concurrentPerIp: 1 }, { trustProxies: ["127.0.0.1"] });
    const from = (address: string) =>
      openPeer(url, RELAY_PATHS.sidecar, { "x-forwarded-for": `10.9.9.9, ${address}` });
    // Two control sockets held open from one TCP peer, the proxy: both challenged, none refused.
    const first = await from("198.51.100.1");
    const second = await from("198.51.100.2");
    for (const peer of [first, second]) {
      expect(JSON.parse((await peer.next("a challenge")).toString()).type).toBe("challenge");
    }
    const third = await from("198.51.100.1"); // the first's address again: over its limit
    expect((await within(third.closed, "the refusal")).code).toBe(RELAY_CLOSE.limit);
    for (const peer of [first, second]) peer.socket.close();

    const untrusting = await relay({ concurrentPerIp: 1 });
    const held = await openPeer(untrusting.url, RELAY_PATHS.sidecar);
    const claimed = await openPeer(untrusting.url, RELAY_PATHS.sidecar, {
      "x-forwarded-for": "198.51.100.3",
    });
    expect((await within(claimed.closed, "the refusal")).code).toBe(RELAY_CLOSE.limit);
    held.socket.close();
  });

  it("bounds the attempts of one address per minute (4029)", async () => {
    const { url } = await relay({ attemptsPerMinutePerIp: 3 });
    const unknownId = sidecarIdOf(generateRelayIdentity().publicKey);
    for (let attempt = 0; attempt < 3; attempt++) {
      const refused = await within((await connectClient(url, unknownId)).closed, "a refusal");
      expect(refused.code).toBe(RELAY_CLOSE.notAvailable);
    }
    const over = await within((await connectClient(url, unknownId)).closed, "the limit");
    expect(over.code).toBe(RELAY_CLOSE.limit);
  });

  it("paces a connection to its rate without losing a byte", async () => {
    const rate = 1024 * 1024;
    const { url } = await relay({ bytesPerSecondPerClient: rate, burstBytesPerClient: 64 * 1024 });
    const sidecar = await sidecarOn(url);
    const { client, data } = await joinedPeers(url, sidecar);
    const frames = Array.from({ length: 8 }, () => randomBytes(64 * 1024));
    const startedAt = Date.now();
    for (const frame of frames) client.socket.send(frame);
    for (const frame of frames) expect((await data.next()).equals(frame)).toBe(true);
    // 512 KiB at 1 MiB/s after a 64 KiB burst: about 0.44 s at the least.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(350);
  });

  it("stops reading a sender while its receiver does not read, then delivers everything", async () => {
    const rate = 1024 * 1024 * 1024; // pacing out of the way: only the buffer bound acts
    const { url } = await relay({
      maxBufferedBytes: 64 * 1024,
      bytesPerSecondPerClient: rate,
      burstBytesPerClient: rate,
      bytesPerSecondPerSidecar: rate,
      burstBytesPerSidecar: rate,
    });
    const sidecar = await sidecarOn(url);
    const { client, data } = await joinedPeers(url, sidecar);
    client.socket.pause(); // a reader that stopped reading
    const frame = randomBytes(64 * 1024);
    let sent = 0;
    // Without backpressure the relay would read on and hold it all; with it, the kernel's
    // buffers on both hops fill and the sidecar's own socket starts to queue.
    await within(
      (async () => {
        while (data.socket.bufferedAmount === 0 && sent < 2000) {
          data.socket.send(frame);
          sent++;
          if (sent % 16 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })(),
      "the sidecar's socket to queue",
      20_000,
    );
    expect(data.socket.bufferedAmount).toBeGreaterThan(0);
    client.socket.resume();
    for (let index = 0; index < sent; index++) {
      expect((await client.next(`frame ${index}`)).equals(frame)).toBe(true);
    }
  });

  it("drops a joined connection without frames for the idle time (4008 to both)", async () => {
    const { url } = await relay({ idleTimeoutMs: 150 });
    const sidecar = await sidecarOn(url);
    const { client, data } = await joinedPeers(url, sidecar);
    expect((await within(client.closed, "the idle drop")).code).toBe(RELAY_CLOSE.idle);
    expect((await within(data.closed, "the idle drop")).code).toBe(RELAY_CLOSE.idle);
  });

  it("terminates a peer that stops answering pings, and closes its other side", async () => {
    const { url } = await relay({ pingIntervalMs: 40, maxMissedPongs: 2 });
    const sidecar = await sidecarOn(url);
    const { client, data } = await joinedPeers(url, sidecar);
    client.socket.pause(); // reads nothing, so answers no ping
    expect((await within(data.closed, "the data socket's close")).code).toBe(RELAY_CLOSE.goingAway);
    client.socket.terminate();
  });

  it("refuses a Host it was not told to serve, before the upgrade", async () => {
    const { url } = await relay({}, { allowHosts: ["relay.example"] });
    await expect(openPeer(url, RELAY_PATHS.sidecar)).rejects.toThrow("HTTP 421");
  });
});

describe("stopping and logging", () => {
  it("closes every socket with 1001 on close(), and listens no more", async () => {
    const started = await startRelay();
    const sidecar = await registeredSidecar(started.url);
    const { client, data } = await joinedPeers(started.url, sidecar);
    const waiting = await connectClient(started.url, sidecar.sidecarId);
    await started.close();
    const codes = await within(
      Promise.all([client.closed, data.closed, waiting.closed].map(async (c) => (await c).code)),
      "every close",
    );
    expect(codes).toEqual([1001, 1001, 1001]);
    await sidecar.connector.close();
    await expect(openPeer(started.url, RELAY_PATHS.sidecar)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("logs each event without ever a frame's content", async () => {
    const lines: string[] = [];
    const { url } = await relay({}, { log: (line) => lines.push(line) });
    const sidecar = await sidecarOn(url);
    const { client, data }: { client: Peer; data: Peer } = await joinedPeers(url, sidecar);
    const phrase = "purple-elephant-7731 the secret words";
    client.socket.send(Buffer.from(phrase));
    expect((await data.next()).toString()).toBe(phrase);
    data.socket.send(Buffer.from(phrase));
    expect((await client.next()).toString()).toBe(phrase);
    client.socket.close(1000);
    await within(data.closed, "the close");
    await within(
      (async () => {
        while (!lines.some((line) => line.includes("relay close"))) {
          await new Promise((r) => setTimeout(r, 10));
        }
      })(),
      "the close line",
    );
    const log = lines.join("\n");
    expect(log).not.toContain("purple-elephant");
    expect(log).not.toContain(sidecar.sidecarId); // a keyed hash, not the id
    expect(log).toMatch(/relay register sidecar=\S+ ip=127\.0\.0\.0\/24/);
    expect(log).toMatch(
      /relay close sidecar=\S+ conn=\S+ ip=\S+ bytesIn=37 bytesOut=37 durationMs=\d+ code=1000/,
    );
  });
});
