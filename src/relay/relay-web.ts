/**
 * The relay's web chat, opt-in (`startRelay({ webRoot })`, `ocb relay --web`): the built chat's
 * page, hashed assets and shell files for plain GET and HEAD requests, so that a pairing link
 * whose base is the relay opens a page that pairs, then talks to the sidecar through this
 * relay. The page carries no secret (a pairing's secret is in the link's fragment, which no
 * request carries); every other plain request stays a 404. Its CSP lets the page reach its own
 * origin only, the relay's WebSocket on it included.
 *
 * Plain Node, as the rest of the relay: the names served are the fixed shell files and asset
 * names of one path segment that cannot climb (no `/`, no `%`, no leading dot), so no request
 * reaches a file outside the build.
 */
import { readFile, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join } from "node:path";
import { SHELL_FILES } from "../web-files/shell-files.js";
import {
  ASSET_CACHE_CONTROL,
  PAGE_CACHE_CONTROL,
  webSecurityHeaders,
} from "../web-files/web-headers.js";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".webmanifest": "application/manifest+json",
  ".json": "application/json",
  ".woff2": "font/woff2",
};
const ASSET_NAME = /^\/assets\/([A-Za-z0-9_-][A-Za-z0-9._-]*)$/;
const SHELL = new Set(SHELL_FILES);
/** A Host header safe to write into the CSP as a source: a name or an address, and a port. */
const HOST_SOURCE = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** The file a plain request asks for, with how long it may be cached; undefined: not the chat's. */
export function relayWebFileOf(
  target: string,
): { path: string[]; cacheControl: string } | undefined {
  const path = target.split("?")[0] ?? "";
  if (path === "/" || path === "/index.html") {
    return { path: ["index.html"], cacheControl: PAGE_CACHE_CONTROL };
  }
  const name = path.slice(1);
  if (SHELL.has(name)) return { path: [name], cacheControl: PAGE_CACHE_CONTROL };
  const asset = ASSET_NAME.exec(path)?.[1];
  return asset === undefined
    ? undefined
    : { path: ["assets", asset], cacheControl: ASSET_CACHE_CONTROL };
}

/** The chat's headers, `connect-src` naming the relay's own WebSocket origin (`host` as the browser sent it). */
export function relayWebHeaders(host: string): Record<string, string> {
  // 'self' covers ws/wss of the page's origin in CSP 3; said outright for browsers before it.
  const own = HOST_SOURCE.test(host) ? [`ws://${host}`, `wss://${host}`] : [];
  return webSecurityHeaders(own);
}

/** Answers a plain request from the chat built in `root`: its file, or 404. */
export async function answerWebRequest(
  root: string,
  request: IncomingMessage,
  response: ServerResponse,
  host: string,
): Promise<void> {
  const method = request.method ?? "GET";
  if (method === "GET" || method === "HEAD") {
    if ((request.url ?? "").split("?")[0] === "/favicon.ico") {
      // Browsers ask for it whatever the page says; without it they log a failed load.
      response.writeHead(204, {
        ...relayWebHeaders(host),
        "cache-control": "public, max-age=86400",
      });
      return void response.end();
    }
    const file = relayWebFileOf(request.url ?? "");
    const body = file === undefined ? undefined : await fileOf(join(root, ...file.path));
    if (file !== undefined && body !== undefined) {
      response.writeHead(200, {
        ...relayWebHeaders(host),
        "content-type":
          CONTENT_TYPES[extname(file.path.at(-1) ?? "")] ?? "application/octet-stream",
        "content-length": body.length,
        "cache-control": file.cacheControl,
      });
      return void response.end(method === "HEAD" ? undefined : body);
    }
  }
  notFound(response);
}

/** The relay's answer to every plain request it does not serve. */
export function notFound(response: ServerResponse): void {
  response.writeHead(404, { "content-type": "text/plain" }).end("ocb relay: WebSocket only\n");
}

async function fileOf(path: string): Promise<Buffer | undefined> {
  try {
    if (!(await stat(path)).isFile()) return undefined;
    return await readFile(path);
  } catch {
    return undefined; // not built, or not there: a 404 like any unknown path
  }
}
