/**
 * Where the built chat is: `<package root>/dist/web`, found from this module's own URL. The
 * package root is two levels up both from `src/web-files/` (a checkout, run by tsx) and from
 * `dist/web-files/` (the published build), so one path works for both.
 */
import { fileURLToPath } from "node:url";

/** The package's `dist/web` (written by `npm run build:web`). */
export function defaultWebRoot(): string {
  return fileURLToPath(new URL("../../dist/web", import.meta.url));
}
