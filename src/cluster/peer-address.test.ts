/** Which peer addresses (from the `leases` table) a sidecar sends the cluster secret to. */
import { describe, expect, it } from "vitest";
import { checkPeerAddress } from "./peer-address.js";

const strict = { insecureHttp: false };

describe("checkPeerAddress", () => {
  it("takes https anywhere and plain http on loopback, as a bare origin", () => {
    expect(checkPeerAddress("https://sidecar-1.internal:8443", strict)).toEqual({
      ok: true,
      origin: "https://sidecar-1.internal:8443",
    });
    expect(checkPeerAddress("https://sidecar-1.internal:8443/", strict)).toMatchObject({
      ok: true,
    });
    for (const loopback of [
      "http://127.0.0.1:4000",
      "http://localhost:4000",
      "http://[::1]:4000",
    ]) {
      expect(checkPeerAddress(loopback, strict), loopback).toMatchObject({ ok: true });
    }
  });

  it("refuses plain http beyond loopback unless the operator opted in", () => {
    for (const far of [
      "http://10.0.0.5:8080",
      "http://0.0.0.0:8080",
      "http://[::ffff:127.0.0.1]:1",
    ]) {
      const check = checkPeerAddress(far, strict);
      expect(check, far).toMatchObject({ ok: false });
      if (!check.ok) expect(check.problem).toContain("--cluster-insecure-http");
    }
    expect(checkPeerAddress("http://10.0.0.5:8080", { insecureHttp: true })).toEqual({
      ok: true,
      origin: "http://10.0.0.5:8080",
    });
  });

  it("refuses what is no bare http(s) origin: credentials, a path, a query, other schemes", () => {
    const refused = [
      "http://127.0.0.1:4000@evil.example:80",
      "https://user:pw@sidecar-1:8443",
      "https://sidecar-1:8443/prefix",
      "https://sidecar-1:8443/?x=1",
      "https://sidecar-1:8443#frag",
      "file:///etc/passwd",
      "ws://127.0.0.1:4000",
      "not a url",
    ];
    for (const address of refused) {
      expect(checkPeerAddress(address, { insecureHttp: true }), address).toMatchObject({
        ok: false,
      });
    }
  });
});
