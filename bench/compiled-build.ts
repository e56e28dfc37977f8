/**
 * The library as users run it: `src/` compiled by `tsc` with the published build's config, so
 * that a figure can be measured on that code as well as under tsx (whose esbuild transform keeps
 * function names with a `__name(...)` call at every closure made, which the build has not).
 * The build goes to a fresh folder under the repository's `.tmp/` (ignored by git), where its
 * imports of `zod` and the rest resolve to the repository's `node_modules`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BUILD_TIMEOUT_MS = 180_000;

/** A compiled build of `src/`, removed by `dispose()`. */
export interface CompiledBuild {
  /** The URL of `src/<path>`'s compiled module (`events/normalize-api.js`). */
  url(path: string): string;
  dispose(): void;
}

/** Compiles `src/` with `tsconfig.build.json` into a temp folder (a few seconds). */
export function compiledBuild(): CompiledBuild {
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  const outDir = mkdtempSync(join(ROOT, ".tmp", "bench-build-"));
  try {
    execFileSync(
      process.execPath,
      [
        join(ROOT, "node_modules/typescript/bin/tsc"),
        "-p",
        "tsconfig.build.json",
        "--outDir",
        outDir,
      ],
      { cwd: ROOT, timeout: BUILD_TIMEOUT_MS, stdio: ["ignore", "pipe", "pipe"] },
    );
  } catch (error) {
    rmSync(outDir, { recursive: true, force: true });
    const output = (error as { stdout?: Buffer }).stdout?.toString().trim() ?? "";
    throw new Error(`tsc could not build src/ for the bench: ${output || String(error)}`, {
      cause: error,
    });
  }
  return {
    url: (path) => pathToFileURL(join(outDir, path)).href,
    dispose: () => rmSync(outDir, { recursive: true, force: true }),
  };
}
