/** Reading the repository's recorded NDJSON fixtures. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Absolute path of a file under the repository's `fixtures/` folder. */
export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../../fixtures/${relative}`, import.meta.url));
}

/** The JSON values of an NDJSON fixture, one per non-empty line. */
export function readNdjson(relative: string): unknown[] {
  return readFileSync(fixturePath(relative), "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as unknown);
}
