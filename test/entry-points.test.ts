/**
 * What the package entry points export: the root is the canonical API only (no internals, no
 * wire schemas), `opencode-bridge/protocol` has the schemas and clients.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("the root entry (opencode-bridge)", () => {
  it("exports the canonical API's values", async () => {
    const root = Object.keys(await import("../src/index.js"));
    for (const name of [
      "Bridge",
      "startOpencode",
      "attachOpencode",
      "SqliteStore",
      "openStore",
      "conversationOf",
      "OpencodeBridgeError",
      "UsageError",
      "UnknownModelError",
      "assertNever",
    ]) {
      expect(root, name).toContain(name);
    }
  });

  it("exports no internals, constants or wire schemas", async () => {
    const root = Object.keys(await import("../src/index.js"));
    for (const name of [
      "Session", // a type only: sessions come from Bridge.createSession / openSession
      "Turn", // a type only: turns come from Session.send
      "serverExited",
      "managedServerKey",
      "chooseBackend",
      "CANONICAL_TYPES",
      "DEFAULT_CONNECTION_LOST_AFTER_MS",
      "DEFAULT_STARTUP_TIMEOUT_MS",
      "HEALTH_PATH",
      "MANAGED_CONFIG_DEFAULTS",
      "OPENCODE_VERSION",
      "probeHealth",
      "OpencodeClient",
      "Opencode2Client",
      "HttpTransport",
      "WireModelRef",
      "ModelRef",
      "api",
      "legacy",
    ]) {
      expect(root, name).not.toContain(name);
    }
  });

  it("declares no internal members or backend SPI types (the checked-in API report)", () => {
    const report = readFileSync("api/index.api.d.ts", "utf8");
    for (const internal of [
      "serverExited",
      "push(event",
      "constructor(id",
      "// SessionBackend",
      "// BackendContext",
      "// BackendFactory",
      "SessionBackend[",
    ]) {
      expect(report, internal).not.toContain(internal);
    }
  });
});

describe("the protocol entry (opencode-bridge/protocol)", () => {
  it("has the wire schemas, the clients and the transports", async () => {
    const protocol = await import("../src/protocol-entry.js");
    expect(Object.keys(protocol)).toEqual(
      expect.arrayContaining(["OpencodeClient", "unstable_Opencode2Client", "HttpTransport"]),
    );
    expect(Object.keys(protocol)).not.toContain("Opencode2Client");
    expect(protocol.WireModelRef.parse({ id: "m", providerID: "p" })).toEqual({
      id: "m",
      providerID: "p",
    });
    expect(Object.keys(protocol.api).length).toBeGreaterThan(0);
    expect(Object.keys(protocol.legacy).length).toBeGreaterThan(0);
  });
});

describe("the client entry (opencode-bridge/client)", () => {
  it("exports the typed client, its errors and the live conversation, and none of its parts", async () => {
    const client = Object.keys(await import("../src/client/index.js")).sort();
    expect(client).toEqual([
      "BridgeAbortError",
      "BridgeApiError",
      "BridgeClient",
      "BridgeClientError",
      "BridgeConnectionError",
      "BridgeProtocolError",
      "BridgeTimeoutError",
      // The one error base, which the client's errors extend.
      "OpencodeBridgeError",
      // The image types the sidecar keeps and serves again (a UI asks for those only).
      "SENT_IMAGE_TYPES",
      "emptyLiveConversation",
      "liveConversationOf",
      "reduceLive",
    ]);
  });

  it("declares no internal member of a subscription (the checked-in API report)", () => {
    const report = readFileSync("api/client.api.d.ts", "utf8");
    for (const internal of [
      "offer(",
      "markCaughtUp",
      "SharedSocket",
      "HttpCaller",
      "SessionFeed",
    ]) {
      expect(report, internal).not.toContain(internal);
    }
  });
});

describe("the cluster entry (opencode-bridge/cluster)", () => {
  it("has the cluster-only names, which the root entry and its declarations do not", async () => {
    const cluster = Object.keys(await import("../src/cluster-entry.js")).sort();
    expect(cluster).toEqual(["ClusterMember", "FencedAppendError"]);
    const root = Object.keys(await import("../src/index.js"));
    expect(root).not.toContain("FencedAppendError");
    const report = readFileSync(new URL("../api/index.api.d.ts", import.meta.url), "utf8");
    for (const name of [
      "AppendFence",
      "FencedAppendError",
      "appendFenced",
      "detachSession",
      "claim?",
    ]) {
      expect(report, name).not.toContain(name);
    }
  });
});

describe("the sidecar entry (opencode-bridge/sidecar)", () => {
  it("exports startSidecar, its metrics and the cluster membership, not the app, routes or streams", async () => {
    const sidecar = Object.keys(await import("../src/sidecar/index.js")).sort();
    expect(sidecar).toEqual(["ClusterMember", "SidecarMetrics", "startSidecar"]);
  });
});
