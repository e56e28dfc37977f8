/** The relay's small parts, without sockets: identity, pacing, admission, routes, log lines. */
import { describe, expect, it } from "vitest";
import { IpGate } from "./ip-gate.js";
import { passableCloseCode } from "./relay-close-codes.js";
import { fullJitterDelay } from "./relay-connector.js";
import {
  acceptMessage,
  generateRelayIdentity,
  relayIdentityOf,
  SIDECAR_ID_PATTERN,
  sidecarIdOf,
  signRelayMessage,
  verifyRelaySignature,
} from "./relay-identity.js";
import { relayLimitsOf } from "./relay-limits.js";
import { relayLogger, truncatedIp } from "./relay-log.js";
import { relayRouteOf } from "./relay-routes.js";
import { TokenBucket } from "./token-bucket.js";

describe("relay identity", () => {
  it("derives a 22-character id from the public key and verifies only its own signatures", () => {
    const identity = generateRelayIdentity();
    const id = sidecarIdOf(identity.publicKey);
    expect(id).toMatch(SIDECAR_ID_PATTERN);
    expect(relayIdentityOf(identity.secretKey).publicKey).toEqual(identity.publicKey);
    const message = acceptMessage("relay.example", id, "c".repeat(22));
    const signature = signRelayMessage(identity, message);
    expect(verifyRelaySignature(identity.publicKey, message, signature)).toBe(true);
    const other = acceptMessage("other.example", id, "c".repeat(22));
    expect(verifyRelaySignature(identity.publicKey, other, signature)).toBe(false);
    expect(verifyRelaySignature(identity.publicKey, message, "not base64url!")).toBe(false);
    expect(verifyRelaySignature(new Uint8Array(3), message, signature)).toBe(false);
  });
});

describe("TokenBucket", () => {
  it("lets a burst through, then asks for the pause that keeps the rate", () => {
    let now = 0;
    const bucket = new TokenBucket(1000, 500, () => now);
    expect(bucket.take(500)).toBe(0);
    expect(bucket.take(250)).toBe(250); // 250 bytes in debt at 1000 B/s
    now += 250;
    expect(bucket.take(0)).toBe(0);
    now += 10_000;
    expect(bucket.take(600)).toBe(100); // refilled to the burst only
  });
});

describe("IpGate", () => {
  it("bounds attempts per minute and open connections per address", () => {
    let now = 0;
    const gate = new IpGate(3, 2, () => now);
    expect(gate.admit("a")).toBe(true);
    expect(gate.admit("a")).toBe(true);
    expect(gate.admit("a")).toBe(false); // two open
    expect(gate.admit("b")).toBe(true);
    gate.release("a");
    expect(gate.admit("a")).toBe(false); // a fourth attempt this minute
    now += 60_000;
    gate.sweep();
    expect(gate.admit("a")).toBe(true);
  });
});

describe("relay routes", () => {
  const id = "A".repeat(22);
  it("knows the three paths and drops the query string", () => {
    expect(relayRouteOf("/v1/relay/sidecar?x=1")).toEqual({ kind: "sidecar" });
    expect(relayRouteOf(`/v1/relay/connect/${id}`)).toEqual({ kind: "connect", sidecarId: id });
    expect(relayRouteOf(`/v1/relay/accept/${id}/${"b".repeat(22)}`)).toEqual({
      kind: "accept",
      sidecarId: id,
      connectionId: "b".repeat(22),
    });
  });
  it("answers a malformed sidecar id as an unknown one, and nothing else", () => {
    expect(relayRouteOf("/v1/relay/connect/nope")).toEqual({ kind: "connect", sidecarId: "" });
    expect(relayRouteOf(`/v1/relay/accept/${id}/short`)).toBeUndefined();
    expect(relayRouteOf("/v1/relay/sidecar/more")).toBeUndefined();
    expect(relayRouteOf("/")).toBeUndefined();
  });
});

describe("relay log lines", () => {
  it("truncates addresses and hashes sidecar ids", () => {
    expect(truncatedIp("203.0.113.77")).toBe("203.0.113.0/24");
    expect(truncatedIp("::ffff:10.1.2.3")).toBe("10.1.2.0/24");
    expect(truncatedIp("2001:db8:85a3:1:2:3:4:5")).toBe("2001:db8:85a3::/48");
    const lines: string[] = [];
    const log = relayLogger((line) => lines.push(line));
    log("join", { sidecar: "A".repeat(22), connection: "c".repeat(22), ip: "198.51.100.9" });
    expect(lines[0]).toMatch(
      /^\S+Z relay join sidecar=\S{10} conn=cccccccc ip=198\.51\.100\.0\/24$/,
    );
    expect(lines[0]).not.toContain("A".repeat(22));
  });
});

describe("the rest", () => {
  it("passes on the close codes a peer may send, else 1001", () => {
    expect(passableCloseCode(4321)).toBe(4321);
    expect(passableCloseCode(1000)).toBe(1000);
    expect(passableCloseCode(1006)).toBe(1001);
    expect(passableCloseCode(1009)).toBe(1001);
  });
  it("draws a full-jitter delay under the capped exponential ceiling", () => {
    expect(fullJitterDelay(0, 500, 30_000, () => 0.999)).toBe(499);
    expect(fullJitterDelay(20, 500, 30_000, () => 0.5)).toBe(15_000);
    expect(fullJitterDelay(3, 500, 30_000, () => 0)).toBe(0);
  });
  it("checks every limit is a positive number", () => {
    expect(relayLimitsOf({ maxSidecars: 5 }).maxSidecars).toBe(5);
    expect(() => relayLimitsOf({ idleTimeoutMs: 0 })).toThrow("idleTimeoutMs");
  });
});
