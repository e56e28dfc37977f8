/**
 * The runtime and the backends are library code: they do not depend on the test helpers of
 * `src/testing/` (the scripted demo model is wired in by the CLI, or by a user, through
 * `BridgeOptions.modelServer`). Checked over the import graph, transitively, so a detour
 * through another module does not hide such a dependency.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(ROOT, "src");
const LAYERS = ["runtime", "backends"];

/** The relative modules a file imports: static, re-exported, type-only and dynamic. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;
  for (const match of text.matchAll(pattern)) {
    const specifier = match[1];
    if (specifier === undefined) continue;
    // Sources import `./x.js` for `./x.ts` (NodeNext resolution).
    found.push(resolve(dirname(file), specifier).replace(/\.js$/, ".ts"));
  }
  return found;
}

function libraryFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => join(dir, name));
}

/** Every path from `start` to a module under src/testing, as "a -> b -> c" chains. */
function pathsToTesting(start: string[]): string[] {
  const testing = join(SRC, "testing");
  const seen = new Set<string>();
  const found: string[] = [];
  const queue: { file: string; chain: string[] }[] = start.map((file) => ({ file, chain: [] }));
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
    const chain = [...item.chain, relative(ROOT, item.file)];
    if (item.file.startsWith(`${testing}/`)) {
      found.push(chain.join(" -> "));
      continue;
    }
    if (seen.has(item.file)) continue;
    seen.add(item.file);
    for (const next of importsOf(item.file)) queue.push({ file: next, chain });
  }
  return found;
}

describe("import graph", () => {
  it("src/runtime and src/backends do not import src/testing, directly or through other modules", () => {
    const start = LAYERS.flatMap((layer) => libraryFiles(join(SRC, layer)));
    expect(start.length).toBeGreaterThan(20);
    expect(pathsToTesting(start)).toEqual([]);
  });

  it("the check sees an import of src/testing (the CLI's, of the demo model)", () => {
    const cli = join(SRC, "cli", "commands", "run.ts");
    expect(pathsToTesting([cli]).length).toBeGreaterThan(0);
  });
});
