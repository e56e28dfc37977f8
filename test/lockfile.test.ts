/**
 * The npm registry reachable here serves only the Linux x64 builds of OpenCode, so
 * `npm install` writes a lockfile without the other platform packages, and `npm ci` then
 * refuses it ("Missing: opencode-darwin-arm64@ from lock file"). The lockfile carries
 * platform-guarded entries for them instead; this test keeps it that way.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const Lock = z.looseObject({
  packages: z.record(
    z.string(),
    z.looseObject({
      version: z.string().optional(),
      optional: z.boolean().optional(),
      os: z.array(z.string()).optional(),
      optionalDependencies: z.record(z.string(), z.string()).optional(),
    }),
  ),
});

describe("package-lock.json", () => {
  const lock = Lock.parse(JSON.parse(readFileSync("package-lock.json", "utf8")));

  it("has an optional, OS-guarded entry for every platform package of opencode-ai", () => {
    const wanted = lock.packages["node_modules/opencode-ai"]?.optionalDependencies ?? {};
    expect(Object.keys(wanted).length).toBeGreaterThan(5);
    for (const [name, version] of Object.entries(wanted)) {
      const entry = lock.packages[`node_modules/${name}`];
      expect(entry, `${name} (restore it: see the comment at the top of this test)`).toBeDefined();
      expect(entry).toMatchObject({ version, optional: true });
      expect(entry?.os?.length, name).toBe(1);
    }
  });
});
