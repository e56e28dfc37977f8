/**
 * Where the built chat is: `<package root>/dist/web`, found from this module's own URL. The
 * package root is three levels up both from `src/sidecar/web/` (a checkout, run by tsx) and
 * from `dist/sidecar/web/` (the published build), so one path works for both.
 */
import { fileURLToPath } from "node:url";

/** The package's `dist/web` (written by `npm run build:web`). */
export function defaultWebRoot(): string {
  return fileURLToPath(new URL("../../../dist/web", import.meta.url));
}
