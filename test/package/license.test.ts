/** The package's licence: the LICENSE file says what package.json's "license" says, and ships. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("LICENSE", () => {
  it("is the MIT licence package.json names, of the project's contributors", () => {
    const manifest = JSON.parse(readFileSync("package.json", "utf8")) as { license?: string };
    expect(manifest.license).toBe("MIT");
    const text = readFileSync("LICENSE", "utf8");
    expect(text).toMatch(/^MIT License\n/);
    expect(text).toContain("Copyright (c) 2026 opencode-bridge contributors");
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
  });

  it("is in the packed package", () => {
    // --ignore-scripts: the list, without building dist/ (the pack e2e test packs it whole).
    const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const [packed] = JSON.parse(output) as { files: { path: string }[] }[];
    expect(packed?.files.map((file) => file.path)).toContain("LICENSE");
  });
});
