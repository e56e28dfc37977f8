/**
 * The web chat's build: `npm run build:web` writes `dist/web` (index.html + hashed assets),
 * which the sidecar serves. Preact's JSX goes through Vite's own transform (oxc); the typed
 * client is bundled from source, so the chat always matches the sidecar it ships with.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here("."),
  base: "./",
  // Copied as they are, beside index.html: the manifest, its icons, the service worker (whose
  // scope is the folder it is served from, so it must not sit under assets/).
  publicDir: here("public"),
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  resolve: {
    alias: { "opencode-bridge/client": here("../src/client/index.ts") },
  },
  build: {
    outDir: here("../dist/web"),
    emptyOutDir: true,
    target: "es2022",
    // No inline module preload polyfill: the CSP allows no inline script.
    modulePreload: { polyfill: false },
  },
});
