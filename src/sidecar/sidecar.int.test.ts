/**
 * `startSidecar` over a stand-in bridge (sessions on the in-process backend, no OpenCode):
 * it listens on loopback, logs JSON lines on stderr with `logFormat`, refuses a weak token,
 * serves https with `tls` (its own https origin accepted), and `close()` stops it
 * (idempotent) without closing the caller's bridge.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { selfSignedCertificate } from "../../test/support/self-signed.js";
import { standInBridge, TOKEN } from "../../test/support/sidecar-harness.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { startSidecar } from "./sidecar.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function bridge() {
  const directory = mkdtempSync(join(tmpdir(), "ocb-sidecar-start-"));
  const store = SqliteStore.open(":memory:");
  const made = standInBridge(directory, store);
  cleanups.push(() => {
    store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { ...made, store };
}

describe("startSidecar", () => {
  it("listens on 127.0.0.1, logs a JSON line per request with logFormat, and stops on close()", async () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const { bridge: standIn, store } = bridge();
    const sidecar = await startSidecar({ bridge: standIn, token: TOKEN, store, logFormat: "json" });
    cleanups.push(() => sidecar.close());
    expect(sidecar.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const listed = await fetch(`${sidecar.url}/v1/sessions`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await listed.json()).toEqual({ sessions: [] });
    await sidecar.close();
    await sidecar.close();
    await expect(fetch(`${sidecar.url}/healthz`)).rejects.toThrow();
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries).toContainEqual(
      expect.objectContaining({
        level: "info",
        msg: "request",
        route: "/v1/sessions",
        status: 200,
      }),
    );
    expect(entries).toContainEqual(expect.objectContaining({ msg: "sidecar stopping" }));
    expect(lines.join("")).not.toContain(TOKEN);
    // The caller's bridge and store are the caller's: still usable.
    expect(await store.sessions()).toEqual([]);
  });

  it("serves https with tls: the API for a client that trusts its certificate, its https origin its own", async () => {
    const tls = selfSignedCertificate();
    const { bridge: standIn, store } = bridge();
    const sidecar = await startSidecar({ bridge: standIn, token: TOKEN, store, tls, web: false });
    cleanups.push(() => sidecar.close());
    expect(sidecar.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const get = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const outgoing = request(
          `${sidecar.url}/v1/sessions`,
          { ca: tls.cert, headers: { authorization: `Bearer ${TOKEN}`, ...headers } },
          (incoming) => {
            let body = "";
            incoming.on("data", (chunk: Buffer) => {
              body += chunk.toString("utf8");
            });
            incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, body }));
          },
        );
        outgoing.on("error", reject);
        outgoing.end();
      });
    expect(await get({})).toEqual({ status: 200, body: JSON.stringify({ sessions: [] }) });
    // A page served by the sidecar itself calls it from its https origin; the http one is another.
    expect((await get({ origin: sidecar.url })).status).toBe(200);
    expect((await get({ origin: sidecar.url.replace(/^https/, "http") })).status).toBe(403);
    // Plain http is not answered as the API.
    const plain = fetch(`${sidecar.url.replace(/^https/, "http")}/v1/sessions`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    await expect(plain.then((answer) => answer.status)).rejects.toThrow();
  });

  it("refuses a token shorter than 16 characters", async () => {
    const { bridge: standIn } = bridge();
    await expect(startSidecar({ bridge: standIn, token: "short" })).rejects.toThrow(/at least 16/);
  });
});
