/**
 * Every test file is in exactly one tier (test/tiers.ts): none that no tier runs (it would
 * never run in `npm test`), none that two run (it would run twice). Asked of vitest itself,
 * with the repository's config, over every `*.test.ts` file of the checkout.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createVitest } from "vitest/node";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Folders that hold no test of ours. */
const NOT_OURS = new Set(["node_modules", "dist", ".git", "test-results"]);

function testFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (NOT_OURS.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFilesUnder(path);
    return entry.name.endsWith(".test.ts") ? [relative(ROOT, path)] : [];
  });
}

async function tiersOfEachFile(): Promise<Map<string, string[]>> {
  const vitest = await createVitest("test", { root: ROOT, watch: false }, {}, {});
  try {
    const tiers = new Map<string, string[]>();
    for (const spec of await vitest.globTestSpecifications()) {
      const file = relative(ROOT, spec.moduleId);
      tiers.set(file, [...(tiers.get(file) ?? []), spec.project.name]);
    }
    return tiers;
  } finally {
    await vitest.close();
  }
}

describe("the test tiers", () => {
  it("run every test file of the checkout, each in exactly one tier", async () => {
    const tiers = await tiersOfEachFile();
    const files = testFilesUnder(ROOT);
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((file) => !tiers.has(file))).toEqual([]);
    expect([...tiers].filter(([, names]) => names.length !== 1)).toEqual([]);
    expect([...tiers.keys()].filter((file) => !files.includes(file))).toEqual([]);
  });
});
