/**
 * The web chat: `GET /` (its `index.html`) and `GET /assets/*` (the hashed bundle) from the
 * built assets, the installable app's files beside them (SHELL_FILES), and an empty
 * `GET /favicon.ico`. No token (the page holds no secret: the user brings the token in the URL's
 * fragment), but the security hook's Host and Origin checks apply (see security.ts), and every
 * answer carries the CSP and the other headers of `web-files/web-headers.ts`.
 */
import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import fastifyStatic from "@fastify/static";
import { SHELL_FILES } from "../../web-files/shell-files.js";
import {
  ASSET_CACHE_CONTROL,
  PAGE_CACHE_CONTROL,
  WEB_SECURITY_HEADERS,
} from "../../web-files/web-headers.js";
import type { SidecarApp } from "../sidecar-app.js";
import { notBuiltPage } from "./not-built.js";

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
