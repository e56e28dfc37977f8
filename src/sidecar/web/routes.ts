/**
 * The web chat: `GET /` (its `index.html`) and `GET /assets/*` (the hashed bundle) from the
 * built assets, the installable app's files beside them (SHELL_FILES), and an empty
 * `GET /favicon.ico`. No token (the page holds no secret: the user brings the token in the URL's
 * fragment), but the security hook's Host and Origin checks apply (see security.ts), and every
 * answer carries the CSP and the other headers of `headers.ts`.
 */
import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import fastifyStatic from "@fastify/static";
import type { SidecarApp } from "../sidecar-app.js";
import { ASSET_CACHE_CONTROL, PAGE_CACHE_CONTROL, WEB_SECURITY_HEADERS } from "./headers.js";
import { notBuiltPage } from "./not-built.js";

/**
 * The installable app's files at the root (typed by their extension, as the assets are): the
 * manifest and its icons, and the service worker (at the root because its scope is the folder
 * it is served from). Never cached by the browser's HTTP cache (no-cache), so a new build's
 * worker is seen at once.
 */
const SHELL_FILES: readonly string[] = [
  "manifest.webmanifest",
  "sw.js",
  "icon.svg",
  "icon-maskable.svg",
  // PNGs rendered from the SVGs (npm run icons): iOS's home screen and older Android launchers.
  "apple-touch-icon.png",
  "icon-192.png",
  "icon-512.png",
  "icon-maskable-192.png",
  "icon-maskable-512.png",
];

/** The chat's routes, as Fastify names them: the security hook lets them in without a token. */
export const WEB_ROUTES: ReadonlySet<string> = new Set([
  "/",
  "/assets/*",
  "/favicon.ico",
  ...SHELL_FILES.map((name) => `/${name}`),
]);

/** Serves the chat built in `root` (`index.html`, `assets/`). */
export function registerWebRoutes(app: SidecarApp, root: string): void {
  const assets = join(root, "assets");
  void app.register(async (scope) => {
    scope.addHook("onSend", async (_request, reply, payload) => {
      void reply.headers(WEB_SECURITY_HEADERS);
      return payload;
    });

    await scope.register(fastifyStatic, {
      root: assets,
      prefix: "/assets/",
      index: false,
      dotfiles: "ignore",
      cacheControl: false,
      // Also called for `index.html` (sendFile below): only the hashed assets are immutable.
      setHeaders: (reply, path) =>
        void reply.header(
          "cache-control",
          path.startsWith(assets + sep) ? ASSET_CACHE_CONTROL : PAGE_CACHE_CONTROL,
        ),
      // A missing root (not built yet) is answered 404 per request, not warned about at start.
      suppressWarning: true,
    });

    // Browsers ask for it whatever the page says; without it they log a failed load.
    scope.get("/favicon.ico", { schema: { hide: true } }, async (_request, reply) =>
      reply.code(204).header("cache-control", "public, max-age=86400").send(),
    );

    for (const name of SHELL_FILES) {
      scope.get(`/${name}`, { schema: { hide: true } }, async (_request, reply) => {
        if (!existsSync(join(root, name))) return reply.code(404).send();
        void reply.header("cache-control", PAGE_CACHE_CONTROL);
        return reply.sendFile(name, root, { cacheControl: false });
      });
    }

    scope.get("/", { schema: { hide: true } }, async (_request, reply) => {
      void reply.header("cache-control", PAGE_CACHE_CONTROL);
      // Looked up per request: a build made while the sidecar runs is served at the next reload.
      if (!existsSync(join(root, "index.html"))) {
        return reply.code(503).type("text/html; charset=utf-8").send(notBuiltPage(root));
      }
      return reply.sendFile("index.html", root, { cacheControl: false });
    });
  });
}
