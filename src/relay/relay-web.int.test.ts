/**
 * The relay's opt-in web chat over real HTTP on loopback, with a small built-chat fixture: the
 * page, its assets and shell files with the chat's headers (a CSP that names the relay's own
 * ws/wss origin), cached as their names allow; nothing outside the build, nor a dotfile; every
 * other plain request still a 404, and every one without `webRoot`; the Host check.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Relay, startRelay } from "./relay-server.js";
import { relayWebFileOf } from "./relay-web.js";

const INDEX = '<!doctype html><title>chat</title><script src="./assets/app-1a2b3c.js"></script>';
const SCRIPT = "console.log('chat');";
const SECRET = "a file beside the build, never to be served";

let parent: string;
let root: string;
const relays: Relay[] = [];

beforeAll(() => {
  parent = mkdtempSync(join(tmpdir(), "ocb-relay-web-"));
  writeFileSync(join(parent, "secret.txt"), SECRET);
  root = join(parent, "web");
  mkdirSync(join(root, "assets"), { recursive: true });
  writeFileSync(join(root, "index.html"), INDEX);
  writeFileSync(join(root, "assets", "app-1a2b3c.js"), SCRIPT);
  writeFileSync(join(root, "assets", ".env"), SECRET);
  writeFileSync(join(root, "sw.js"), "self.addEventListener('fetch', () => {});");
  writeFileSync(join(root, "manifest.webmanifest"), '{"name":"chat"}');
});
afterEach(async () => {
  for (const relay of relays.splice(0)) await relay.close();
});
afterAll(() => rmSync(parent, { recursive: true, force: true }));

async function relayWith(options: Parameters<typeof startRelay>[0]): Promise<string> {
  const relay = await startRelay(options);
  relays.push(relay);
  return relay.url.replace(/^ws/, "http");
}

describe("the relay's web chat", () => {
  it("serves the page (no-cache) and the hashed assets (immutable) with the chat's headers", async () => {
    const base = await relayWith({ webRoot: root });
    const host = new URL(base).host;
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toBe(INDEX);
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain(`connect-src 'self' ws://${host} wss://${host};`);
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");

    const script = await fetch(`${base}/assets/app-1a2b3c.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect(await script.text()).toBe(SCRIPT);
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");

    const worker = await fetch(`${base}/sw.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get("cache-control")).toBe("no-cache");
    const manifest = await fetch(`${base}/manifest.webmanifest`);
    expect(manifest.headers.get("content-type")).toMatch(/^application\/manifest\+json/);
    expect((await fetch(`${base}/favicon.ico`)).status).toBe(204);
    // A shell file this build lacks.
    expect((await fetch(`${base}/icon-192.png`)).status).toBe(404);
  });

  it.each([
    "/secret.txt",
    "/assets/../secret.txt",
    "/assets/..%2fsecret.txt",
    "/assets/%2e%2e%2fsecret.txt",
    "/assets/.env",
    "/assets/",
    "/assets/nothing.js",
    "/v1/relay/sidecar",
    "/web/index.html",
  ])("serves nothing else: %s is a 404", async (path) => {
    const base = await relayWith({ webRoot: root });
    const answer = await fetch(`${base}${path}`);
    expect(answer.status).toBe(404);
    const body = await answer.text();
    expect(body).not.toContain(SECRET);
    expect(body).not.toContain(INDEX);
  });

  it("answers a POST to the page with a 404, and HEAD without a body", async () => {
    const base = await relayWith({ webRoot: root });
    expect((await fetch(`${base}/`, { method: "POST", body: "x" })).status).toBe(404);
    const head = await fetch(`${base}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("serves nothing without webRoot (the default): every plain request is a 404", async () => {
    const base = await relayWith({});
    for (const path of ["/", "/assets/app-1a2b3c.js", "/sw.js"]) {
      expect((await fetch(`${base}${path}`)).status).toBe(404);
    }
  });

  it("refuses a Host not allowed (421), as it does for upgrades", async () => {
    const base = await relayWith({ webRoot: root, allowHosts: ["relay.example.org"] });
    expect((await fetch(`${base}/`)).status).toBe(421);
  });

  it("maps only the page, the shell files and one-segment asset names to files", () => {
    expect(relayWebFileOf("/")?.path).toEqual(["index.html"]);
    expect(relayWebFileOf("/?x=1")?.path).toEqual(["index.html"]);
    expect(relayWebFileOf("/sw.js")?.path).toEqual(["sw.js"]);
    expect(relayWebFileOf("/assets/index-Dv2HdLLI.js")?.path).toEqual([
      "assets",
      "index-Dv2HdLLI.js",
    ]);
    for (const target of ["/assets/a/b.js", "/assets/..", "/assets/.x", "/x.js", "//sw.js"]) {
      expect(relayWebFileOf(target)).toBeUndefined();
    }
  });
});
