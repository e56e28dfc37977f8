import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { sandboxSettings } from "./sandbox-options.js";

describe("sandboxSettings", () => {
  it("is off without a sandbox, and fills in the defaults of a mode", () => {
    expect(sandboxSettings(undefined)).toEqual({
      mode: "off",
      network: "on",
      deny: [],
      writable: [],
    });
    expect(sandboxSettings("read-only")).toEqual({
      mode: "read-only",
      network: "on",
      deny: [],
      writable: [],
    });
  });

  it("refuses what cannot be, saying what to do", () => {
    const refused = (given: unknown) => () => sandboxSettings(given as never);
    expect(refused("everything")).toThrow(/one of off, read-only, workspace-write/);
    expect(refused({ mode: "off", network: "off" })).toThrow(/only inside a sandbox/);
    expect(refused({ mode: "read-only", network: "none" })).toThrow(/on or off/);
    expect(refused({ mode: "read-only", writable: ["/srv"] })).toThrow(
      /workspace-write sandbox only/,
    );
    expect(refused({ mode: "workspace-write", deny: ["secrets"] })).toThrow(/must be absolute/);
    expect(refused("everything")).toThrow(UsageError);
  });
});
