/**
 * The checked-in API report (`api/*.api.d.ts`) is what the package entry points export: a
 * change of the public surface fails here until the report is regenerated and the diff reviewed.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { API_REPORT_DIR, ENTRY_POINTS, writeApiReport } from "../../scripts/api-report.js";

describe("the API report", () => {
  const outDir = mkdtempSync(join(tmpdir(), "ocb-api-report-"));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("covers exactly the package's entry points, with their declaration files", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      exports: Record<string, { types: string }>;
    };
    expect(
      Object.fromEntries(Object.entries(pkg.exports).map(([entry, { types }]) => [entry, types])),
    ).toEqual(Object.fromEntries(ENTRY_POINTS.map((e) => [e.entry, `./dist/${e.file}`])));
  });

  it("matches the public API of every entry point", { timeout: 120_000 }, () => {
    const written = writeApiReport(outDir);
    expect(written.map((path) => basename(path))).toEqual(ENTRY_POINTS.map((e) => e.report));
    for (const path of written) {
      const name = basename(path);
      let checkedIn: string;
      try {
        checkedIn = readFileSync(join(API_REPORT_DIR, name), "utf8");
      } catch {
        checkedIn = "";
      }
      const now = readFileSync(path, "utf8");
      if (now !== checkedIn) {
        expect.fail(
          `the public API changed (api/${name}): run npm run api:report and review the diff`,
        );
      }
    }
  });
});
