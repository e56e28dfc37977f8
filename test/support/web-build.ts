/** The built web chat (`npm run build:web` → dist/web), which the browser tests and bench use. */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The chat's page, as the sidecar serves it. */
export const WEB_INDEX = join(ROOT, "dist", "web", "index.html");

/** Throws (a test fails, never skips) when the chat is not built. */
export function assertWebBuilt(index = WEB_INDEX): void {
  if (!existsSync(index)) {
    throw new Error(
      `the web chat is not built (${index} is missing): run npm run build:web (npm test does it first)`,
    );
  }
}
