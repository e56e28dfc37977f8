/**
 * The pieces of pairing on their own: the link read back and refused when it is not one
 * (each field, another version), the offers' expiry, single use and burning after wrong
 * secrets, and the paired devices' file (0600, written whole, an edited entry dropped, refused
 * when others may write it).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateNoiseKeyPair } from "../noise/index.js";
import { PairedDevices } from "./paired-devices.js";
import { pairedSidecarFromJson, pairedSidecarToJson } from "./paired-sidecar.js";
import { isPairingLink, pairingLink, parsePairingLink } from "./pairing-link.js";
import { PairingOffers } from "./pairing-offers.js";
import { deviceIdOf } from "./remote-handshake.js";

const dir = mkdtempSync(join(tmpdir(), "ocb-pairing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const offer = {
  relays: ["wss://relay.example", "ws://127.0.0.1:8080"],
  sidecarId: "A".repeat(22),
  sidecarKey: new Uint8Array(32).fill(1),
  pairingId: "B".repeat(22),
  secret: new Uint8Array(32).fill(2),
};

describe("the pairing link", () => {
  it("reads back what it was made of, from the whole link or its fragment", () => {
    const link = pairingLink("https://pair.example/chat?x=1#old", offer);
    expect(link.startsWith("https://pair.example/chat?x=1#ocb-pair=1&relay=")).toBe(true);
    expect(isPairingLink(link)).toBe(true);
    expect(isPairingLink("https://pair.example/#token=abc")).toBe(false);
    expect(parsePairingLink(link)).toEqual(offer);
    expect(parsePairingLink(link.slice(link.indexOf("#") + 1))).toEqual(offer);
  });

  it.each([
    [
      "no pairing fragment",
      (link: string) => link.replace("ocb-pair=1", "other=1"),
      "no ocb-pair field",
    ],
    ["another version", (link: string) => link.replace("ocb-pair=1", "ocb-pair=2"), "of version 2"],
    ["no relay", (link: string) => link.replace(/relay=[^&]+&/g, ""), "names 0 relays"],
    [
      "an http relay",
      (link: string) => link.replace(/relay=wss[^&]+/, "relay=https%3A%2F%2Fx"),
      "not a ws:// or wss:// URL",
    ],
    [
      "a short key",
      (link: string) => link.replace(/key=[^&]+/, "key=AAAA"),
      "its key is not 32 bytes",
    ],
    [
      "a bad secret",
      (link: string) => link.replace(/secret=[^&]+/, "secret=%2B%2B"),
      "its secret is not 32 bytes",
    ],
    [
      "a bad sidecar id",
      (link: string) => link.replace(/sidecar=[^&]+/, "sidecar=x"),
      "sidecar id is not one",
    ],
  ])("refuses %s, saying what is wrong", (_what, spoil, message) => {
    const link = spoil(pairingLink("https://pair.example/", offer));
    expect(() => parsePairingLink(link)).toThrow(
      expect.objectContaining({ reason: "bad-link", message: expect.stringContaining(message) }),
    );
  });
});

describe("the pairing offers", () => {
  it("expire, are spent once, and burn after three wrong secrets", () => {
    let now = 1_000;
    const offers = new PairingOffers(() => now);
    const first = offers.create(60_000);
    expect(offers.secretOf(first.pairingId)).toEqual(first.secret);
    now += 60_000;
    expect(offers.secretOf(first.pairingId)).toBeUndefined();

    const second = offers.create();
    expect(offers.spend(second.pairingId)).toBe(true);
    expect(offers.spend(second.pairingId)).toBe(false);
    expect(offers.secretOf(second.pairingId)).toBeUndefined();

    const third = offers.create();
    offers.failed(third.pairingId);
    offers.failed(third.pairingId);
    expect(offers.secretOf(third.pairingId)).toEqual(third.secret);
    offers.failed(third.pairingId);
    expect(offers.secretOf(third.pairingId)).toBeUndefined();
    expect(offers.create().secret).not.toEqual(third.secret);
  });
});

describe("the paired devices", () => {
  it("are kept in a 0600 file, found by key, revoked, and read back", () => {
    const path = join(dir, "a", "paired-devices.json");
    const devices = PairedDevices.load(path);
    expect(devices.list()).toEqual([]);
    const phone = generateNoiseKeyPair().publicKey;
    const laptop = generateNoiseKeyPair().publicKey;
    devices.add(phone, "phone");
    devices.add(laptop, "laptop");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(PairedDevices.load(path).byPublicKey(phone)?.name).toBe("phone");
    expect(devices.revoke(deviceIdOf(phone))).toBe(true);
    expect(devices.revoke(deviceIdOf(phone))).toBe(false);
    const again = PairedDevices.load(path);
    expect(again.byPublicKey(phone)).toBeUndefined();
    expect(again.list().map((device) => device.name)).toEqual(["laptop"]);
  });

  it("drop an edited entry (an id that is not its key's) and refuse a file others may write", () => {
    const path = join(dir, "b.json");
    const devices = PairedDevices.load(path);
    const key = generateNoiseKeyPair().publicKey;
    devices.add(key, "phone");
    const text = readFileSync(path, "utf8").replace(deviceIdOf(key), "C".repeat(22));
    writeFileSync(path, text, { mode: 0o600 });
    expect(PairedDevices.load(path).list()).toEqual([]);
    chmodSync(path, 0o622);
    expect(() => PairedDevices.load(path)).toThrow(/can be written by others .*chmod 600/);
    chmodSync(path, 0o600);
    writeFileSync(path, "{ not json");
    expect(() => PairedDevices.load(path)).toThrow(/is not one .*move it away/);
  });
});

describe("a kept pairing", () => {
  it("reads back, and an edited one is refused with what to do", () => {
    const deviceKey = generateNoiseKeyPair();
    const paired = { ...offer, deviceKey, deviceId: deviceIdOf(deviceKey.publicKey) };
    const kept = JSON.parse(JSON.stringify(pairedSidecarToJson(paired)));
    expect(pairedSidecarFromJson(kept)).toEqual({
      relays: offer.relays,
      sidecarId: offer.sidecarId,
      sidecarKey: offer.sidecarKey,
      deviceKey,
      deviceId: paired.deviceId,
    });
    expect(() => pairedSidecarFromJson({ ...kept, relays: ["http://x"] })).toThrow(
      /pair this device again/,
    );
  });
});
