import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { Bridge } from "./bridge.js";
import { experimentalConfig } from "./experimental-config.js";

describe("experimentalConfig", () => {
  it("defaults continue_loop_on_deny to true", () => {
    expect(experimentalConfig(undefined, undefined)).toEqual({ continue_loop_on_deny: true });
  });

  it("keeps the user's other experimental settings beside continueAfterReject", () => {
    expect(experimentalConfig({ batch_tool: true }, false)).toEqual({
      batch_tool: true,
      continue_loop_on_deny: false,
    });
  });

  it("takes the user's own continue_loop_on_deny when continueAfterReject is not given", () => {
    expect(experimentalConfig({ continue_loop_on_deny: false }, undefined)).toEqual({
      continue_loop_on_deny: false,
    });
  });

  it("refuses a user section that contradicts continueAfterReject instead of letting it win", () => {
    expect(() => experimentalConfig({ continue_loop_on_deny: true }, false)).toThrow(UsageError);
    expect(() => experimentalConfig({ continue_loop_on_deny: true }, false)).toThrow(
      /continueAfterReject is false but config\.experimental\.continue_loop_on_deny is true/,
    );
    expect(experimentalConfig({ continue_loop_on_deny: true }, true)).toEqual({
      continue_loop_on_deny: true,
    });
  });

  it("refuses an experimental section that is not an object", () => {
    expect(() => experimentalConfig("yes", undefined)).toThrow(
      /config\.experimental must be an object/,
    );
    expect(() => experimentalConfig({ continue_loop_on_deny: "no" }, undefined)).toThrow(
      /must be true or false/,
    );
  });
});

describe("Bridge.start with continueAfterReject and config.experimental", () => {
  it("refuses a config whose experimental section contradicts continueAfterReject", async () => {
    const directory = mkdtempSync(join(tmpdir(), "ocb-experimental-"));
    try {
      const started = Bridge.start({
        directory,
        backend: "subprocess",
        store: ":memory:",
        continueAfterReject: false,
        config: { experimental: { continue_loop_on_deny: true, batch_tool: true } },
      });
      // Today's main let the config's value win silently (the bridge started).
      await expect(started.then((bridge) => bridge.close())).rejects.toThrow(
        /continueAfterReject is false but config\.experimental\.continue_loop_on_deny is true/,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
