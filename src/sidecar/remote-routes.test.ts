/**
 * The remote-access routes on the HTTP layer (no relay reached: the one named refuses at
 * once): off without `remote`, saying how to turn it on; a pairing link made and its fields
 * checked; a device through a relay (the tunnel's header) may read but neither pair nor
 * revoke; bad ids and link bases refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  AUTH,
  JSON_HEADERS,
  type SidecarHarness,
  sidecarHarness,
} from "../../test/support/sidecar-harness.js";
import { generateNoiseKeyPair } from "../noise/index.js";
import { generateRelayIdentity } from "../relay/relay-identity.js";
import { PairedDevices } from "../remote/paired-devices.js";
import { parsePairingLink } from "../remote/pairing-link.js";
import { DEVICE_HEADER, RemoteAccess } from "../remote/remote-access.js";
import { remoteIdentityOf } from "../remote/remote-identity.js";

let harness: SidecarHarness | undefined;
let access: RemoteAccess | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await access?.close();
  await harness?.close();
  access = undefined;
  harness = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function withRemote(): { harness: SidecarHarness; devices: PairedDevices; access: RemoteAccess } {
  harness = sidecarHarness({ web: false });
  const dir = mkdtempSync(join(tmpdir(), "ocb-remote-routes-"));
  dirs.push(dir);
  const devices = PairedDevices.load(join(dir, "paired-devices.json"));
  access = new RemoteAccess({
    relays: ["ws://127.0.0.1:9"],
    identity: remoteIdentityOf(generateRelayIdentity()),
    devices,
    target: { host: "127.0.0.1", port: 9 },
    token: "unused-token-0123456789",
  });
  if (harness.ctx.remote === undefined) throw new Error("the harness's context has no remote slot");
  harness.ctx.remote.access = access;
  return { harness, devices, access };
}

describe("the remote routes", () => {
  it("are off without remote access, and say how to turn it on", async () => {
    harness = sidecarHarness({ web: false });
    const answer = await harness.app.inject({ url: "/v1/remote", headers: AUTH });
    expect(answer.statusCode).toBe(404);
    expect(answer.json().error.message).toContain("start the sidecar with --relay");
  });

  it("make a one-time pairing link naming the relays, the sidecar and its key", async () => {
    const { harness, access } = withRemote();
    const answer = await harness.app.inject({
      method: "POST",
      url: "/v1/remote/pairings",
      headers: JSON_HEADERS,
      payload: { linkBase: "https://pair.example/chat" },
    });
    expect(answer.statusCode).toBe(201);
    const { link, pairingId, expiresAt } = answer.json();
    expect(link.startsWith("https://pair.example/chat#ocb-pair=1&")).toBe(true);
    const offer = parsePairingLink(link);
    expect(offer).toMatchObject({
      relays: ["ws://127.0.0.1:9"],
      sidecarId: access.sidecarId,
      pairingId,
    });
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    // Without a base: the first relay's address, as a page.
    const plain = await harness.app.inject({
      method: "POST",
      url: "/v1/remote/pairings",
      headers: AUTH,
    });
    expect(plain.json().link.startsWith("http://127.0.0.1:9/#ocb-pair=1&")).toBe(true);
  });

  it("let a device through a relay read, but neither pair nor revoke", async () => {
    const { harness, devices } = withRemote();
    const device = devices.add(generateNoiseKeyPair().publicKey, "phone");
    const asDevice = { ...JSON_HEADERS, [DEVICE_HEADER]: device.id };
    const status = await harness.app.inject({ url: "/v1/remote", headers: asDevice });
    expect(status.json().devices).toEqual([
      { id: device.id, name: "phone", pairedAt: device.pairedAt, connections: 0 },
    ]);
    const pair = await harness.app.inject({
      method: "POST",
      url: "/v1/remote/pairings",
      headers: asDevice,
      payload: {},
    });
    expect(pair.statusCode).toBe(403);
    expect(pair.json().error.message).toContain("not through a relay");
    const revoke = await harness.app.inject({
      method: "DELETE",
      url: `/v1/remote/devices/${device.id}`,
      headers: { ...AUTH, [DEVICE_HEADER]: device.id },
    });
    expect(revoke.statusCode).toBe(403);
    expect(devices.list()).toHaveLength(1);
    const owner = await harness.app.inject({
      method: "DELETE",
      url: `/v1/remote/devices/${device.id}`,
      headers: AUTH,
    });
    expect(owner.json()).toEqual({ ok: true });
    expect(devices.list()).toEqual([]);
  });

  it("refuse an unknown or malformed device id and a link base that is not http(s)", async () => {
    const { harness } = withRemote();
    const unknown = await harness.app.inject({
      method: "DELETE",
      url: `/v1/remote/devices/${"a".repeat(22)}`,
      headers: AUTH,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toContain("ocb devices lists them");
    const malformed = await harness.app.inject({
      method: "DELETE",
      url: "/v1/remote/devices/..%2f..",
      headers: AUTH,
    });
    expect(malformed.statusCode).toBe(400);
    const base = await harness.app.inject({
      method: "POST",
      url: "/v1/remote/pairings",
      headers: JSON_HEADERS,
      payload: { linkBase: "javascript:alert(1)" },
    });
    expect(base.statusCode).toBe(400);
  });
});
