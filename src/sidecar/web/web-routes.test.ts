/**
 * The web chat's routes over `app.inject()`, with a small built-chat fixture in a temp dir:
 * the page and its assets need no token but keep the Host and Origin checks, carry the CSP and
 * the other headers, are cached as their names allow, never serve a file outside the assets,
 * and say how to build the chat when it is not built. The API's own rules stay as they were.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  AUTH,
  type SidecarHarness,
  sidecarHarness,
} from "../../../test/support/sidecar-harness.js";
import { CONTENT_SECURITY_POLICY } from "../../web-files/web-headers.js";

const INDEX =
  '<!doctype html><title>chat</title><script type="module" src="/assets/app-1a2b3c.js"></script>';
const SCRIPT = "console.log('chat');";
const SECRET = "a file beside the assets, never to be served";
const MANIFEST = '{"name":"chat","start_url":"./","display":"standalone"}';
const WORKER = "self.addEventListener('fetch', () => {});";
/** A PNG file's first 8 bytes: enough for the route, which sends the file as it is. */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const made: SidecarHarness[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const harness of made.splice(0)) await harness.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A built chat (`index.html`, `assets/app-1a2b3c.js`, a dotfile) beside a secret file. */
function builtChat(options: { index?: boolean } = {}): string {
  const parent = mkdtempSync(join(tmpdir(), "ocb-web-"));
  dirs.push(parent);
  writeFileSync(join(parent, "secret.txt"), SECRET);
  const root = join(parent, "web");
  mkdirSync(join(root, "assets"), { recursive: true });
  if (options.index !== false) writeFileSync(join(root, "index.html"), INDEX);
  writeFileSync(join(root, "assets", "app-1a2b3c.js"), SCRIPT);
  writeFileSync(join(root, "manifest.webmanifest"), MANIFEST);
  writeFileSync(join(root, "sw.js"), WORKER);
  writeFileSync(join(root, "icon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  writeFileSync(join(root, "icon-192.png"), PNG_SIGNATURE);
  writeFileSync(join(root, "assets", ".env"), SECRET);
  return root;
}

function harness(options: Parameters<typeof sidecarHarness>[0] = {}) {
  const made1 = sidecarHarness(options);
  made.push(made1);
  return made1.app;
}

function expectWebHeaders(headers: Record<string, unknown>): void {
  expect(headers["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY);
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("no-referrer");
}

describe("the web chat's page and assets", () => {
  it("serves / (index.html, not cached) and /assets/* (immutable) without a token", async () => {
    const app = harness({ web: builtChat() });
    const page = await app.inject({ url: "/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.body).toBe(INDEX);
    expect(page.headers["cache-control"]).toBe("no-cache");
    expectWebHeaders(page.headers);

    const script = await app.inject({ url: "/assets/app-1a2b3c.js" });
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toMatch(/javascript/);
    expect(script.body).toBe(SCRIPT);
    expect(script.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expectWebHeaders(script.headers);
  });

  it("serves the installable app's files at the root, typed, never cached, without a token", async () => {
    const app = harness({ web: builtChat() });
    const manifest = await app.inject({ url: "/manifest.webmanifest" });
    expect(manifest.statusCode).toBe(200);
    expect(manifest.headers["content-type"]).toMatch(/^application\/manifest\+json/);
    expect(manifest.body).toBe(MANIFEST);
    expect(manifest.headers["cache-control"]).toBe("no-cache");
    expectWebHeaders(manifest.headers);
    const worker = await app.inject({ url: "/sw.js" });
    expect(worker.statusCode).toBe(200);
    expect(worker.headers["content-type"]).toMatch(/javascript/);
    expect(worker.body).toBe(WORKER);
    expect(worker.headers["cache-control"]).toBe("no-cache");
    expectWebHeaders(worker.headers);
    const icon = await app.inject({ url: "/icon.svg" });
    expect(icon.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    const png = await app.inject({ url: "/icon-192.png" });
    expect(png.statusCode).toBe(200);
    expect(png.headers["content-type"]).toBe("image/png");
    expect(png.rawPayload.equals(PNG_SIGNATURE)).toBe(true);
    expect(png.headers["cache-control"]).toBe("no-cache");
    // Not in this build: answered 404, not 401 (the route is the chat's).
    expect((await app.inject({ url: "/icon-maskable.svg" })).statusCode).toBe(404);
    expect((await app.inject({ url: "/apple-touch-icon.png" })).statusCode).toBe(404);
    // Other root files stay the API's: a token, then 404.
    expect((await app.inject({ url: "/secret.txt" })).statusCode).toBe(401);
  });

  it("answers /favicon.ico with nothing (204) rather than a failed load", async () => {
    const app = harness({ web: builtChat() });
    const icon = await app.inject({ url: "/favicon.ico" });
    expect(icon.statusCode).toBe(204);
    expectWebHeaders(icon.headers);
  });

  it("the CSP allows only the page's own scripts, styles, images and connections", () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
        "style-src 'self' 'unsafe-inline'; script-src 'self'; worker-src 'self'; " +
        "manifest-src 'self'; object-src 'none'; " +
        "base-uri 'none'; frame-ancestors 'none'",
    );
  });

  it("keeps the Host check (DNS rebinding) and the Origin check", async () => {
    const app = harness({ web: builtChat() });
    const rebound = await app.inject({ url: "/", headers: { host: "evil.example:80" } });
    expect(rebound.statusCode).toBe(421);
    expect(rebound.json().error.code).toBe("bad_host");
    const asset = await app.inject({
      url: "/assets/app-1a2b3c.js",
      headers: { host: "evil.example:80" },
    });
    expect(asset.statusCode).toBe(421);
    const foreign = await app.inject({ url: "/", headers: { origin: "http://evil.example" } });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.code).toBe("bad_origin");
    const own = await app.inject({ url: "/", headers: { origin: "http://localhost:80" } });
    expect(own.statusCode).toBe(200);
  });

  it.each([
    "/assets/../secret.txt",
    "/assets/..%2fsecret.txt",
    "/assets/%2e%2e/secret.txt",
    "/assets/..%2f..%2fweb%2findex.html",
    "/assets/%2e%2e%2f%2e%2e%2fsecret.txt",
    "/assets/.env",
    "/assets/",
    "/assets/nothing.js",
  ])("serves nothing outside the assets, nor a dotfile, nor a listing: %s", async (url) => {
    const app = harness({ web: builtChat() });
    const response = await app.inject({ url });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.body).not.toContain(SECRET);
    expect(response.body).not.toContain(INDEX);
  });

  it("says how to build the chat when it is not built (503, with the same headers)", async () => {
    const app = harness({ web: builtChat({ index: false }) });
    const page = await app.inject({ url: "/" });
    expect(page.statusCode).toBe(503);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.body).toContain("npm run build:web");
    expectWebHeaders(page.headers);
  });

  it("is off with web: false: / is then an API path like any other (token, then 404)", async () => {
    const app = harness({ web: false });
    expect((await app.inject({ url: "/" })).statusCode).toBe(401);
    expect((await app.inject({ url: "/assets/app-1a2b3c.js" })).statusCode).toBe(401);
    const found = await app.inject({ url: "/", headers: AUTH });
    expect(found.statusCode).toBe(404);
  });

  it("leaves the API's rules as they were: a token for /v1, 404 for an unknown /v1 path", async () => {
    const app = harness({ web: builtChat() });
    expect((await app.inject({ url: "/v1/sessions" })).statusCode).toBe(401);
    expect((await app.inject({ url: "/v1/nothing-here" })).statusCode).toBe(401);
    const unknown = await app.inject({ url: "/v1/nothing-here", headers: AUTH });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("not_found");
    expect((await app.inject({ url: "/index.html" })).statusCode).toBe(401);
    const listed = await app.inject({ url: "/v1/sessions", headers: AUTH });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers["content-security-policy"]).toBeUndefined();
  });
});
