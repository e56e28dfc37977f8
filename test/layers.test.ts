/**
 * The layer order of test/layer-order.ts holds over the real import graph of src/, test/,
 * bench/ and scripts/: no module imports one of a layer above its own, so no two layers import
 * each other, and every module is in a declared layer.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LAYER_EXCEPTIONS, LAYERS } from "./layer-order.js";
import { describeViolation, layerOf, layerViolations, modulesOf } from "./support/layer-check.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FOLDERS = ["src", "test", "bench", "scripts"];

describe("the layer order", () => {
  it("holds for every import of src/, test/, bench/ and scripts/", () => {
    const files = modulesOf(ROOT, FOLDERS);
    expect(files.length).toBeGreaterThan(500);
    const violations = layerViolations(ROOT, files, LAYERS, LAYER_EXCEPTIONS);
    expect(violations.map(describeViolation)).toEqual([]);
  });

  it("places a module by its closest declared path, and a test file among the tests", () => {
    expect(layerOf(LAYERS, "src/sidecar/streams/feed-member.ts")?.name).toBe("sidecar/streams");
    expect(layerOf(LAYERS, "src/sidecar/sidecar.ts")?.name).toBe("sidecar");
    expect(layerOf(LAYERS, "src/backends/serve/serve-backend.ts")?.name).toBe("backends");
    expect(layerOf(LAYERS, "src/errors.ts")?.name).toBe("errors");
    expect(layerOf(LAYERS, "src/runtime/session.test.ts")?.name).toBe("tests");
    expect(layerOf(LAYERS, "src/errors-and-more.ts")).toBeUndefined();
  });

  it("names the importing file, the imported file and the rule for an import up the order", () => {
    const root = mkdtempSync(join(tmpdir(), "ocb-layers-"));
    try {
      mkdirSync(join(root, "high"));
      mkdirSync(join(root, "low"));
      writeFileSync(
        join(root, "high", "top.ts"),
        'import { low } from "../low/base.js";\nexport const top = low;\n',
      );
      writeFileSync(
        join(root, "low", "base.ts"),
        '// a comment: import { top } from "../high/top.js";\nexport const low = 1;\nexport type Top = typeof import("../high/top.js").top;\n',
      );
      writeFileSync(join(root, "stray.ts"), "export {};\n");
      const layers = [
        { name: "high", paths: ["high"], what: "" },
        { name: "low", paths: ["low"], what: "" },
      ];
      const files = modulesOf(root, ["high", "low"]).concat(join(root, "stray.ts"));
      expect(layerViolations(root, files, layers, []).map(describeViolation)).toEqual([
        "stray.ts: is in no declared layer",
        "low/base.ts:3 imports high/top.ts: layer low imports layer high, which is above it in " +
          "test/layer-order.ts, closing a loop (high/top.ts:1 imports low/base.ts)",
      ]);
      const allowed = [{ from: "low", to: "high", why: "a test" }];
      expect(layerViolations(root, files.slice(0, 2), layers, allowed)).toEqual([]);
      const stale = [{ from: "high", to: "low", why: "no longer needed" }];
      expect(
        layerViolations(root, files.slice(0, 1), layers, stale).map(describeViolation),
      ).toEqual([
        "test/layer-order.ts: the exception high -> low is needed by no import any more: delete it",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
