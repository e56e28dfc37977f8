import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { managedConfig } from "./managed-config.js";
import { PERMISSION_PRESETS } from "./permission-presets.js";

describe("managedConfig", () => {
  it("is the user's config with continue_loop_on_deny defaulted on", () => {
    expect(managedConfig({ config: { model: "a/b", share: "disabled" } }, undefined)).toEqual({
      model: "a/b",
      share: "disabled",
      experimental: { continue_loop_on_deny: true },
    });
  });

  it("lays the model server's config over the user's (its provider and default model win)", () => {
    const merged = managedConfig(
      { config: { model: "a/b", provider: { a: {} }, share: "disabled" } },
      { model: "demo/demo-1", provider: { demo: { api: "http://127.0.0.1:1" } } },
    );
    expect(merged).toEqual({
      model: "demo/demo-1",
      provider: { demo: { api: "http://127.0.0.1:1" } },
      share: "disabled",
      experimental: { continue_loop_on_deny: true },
    });
  });

  it("sets permission from a preset or a ruleset, over any the configs set", () => {
    expect(
      managedConfig(
        { config: { permission: { edit: "allow" } }, permissions: "read-only" },
        { permission: { bash: "allow" } },
      ).permission,
    ).toEqual(PERMISSION_PRESETS["read-only"]);
    const ruleset = { edit: "ask", bash: { "git *": "allow" } };
    expect(managedConfig({ permissions: ruleset }, undefined).permission).toBe(ruleset);
    expect(
      managedConfig({ config: { permission: { edit: "allow" } } }, undefined).permission,
    ).toEqual({ edit: "allow" });
  });

  it("merges continueAfterReject into the user's experimental section, not over it", () => {
    expect(
      managedConfig(
        { config: { experimental: { batch_tool: true } }, continueAfterReject: false },
        undefined,
      ).experimental,
    ).toEqual({ batch_tool: true, continue_loop_on_deny: false });
  });

  it("refuses an unknown preset and a contradicting experimental section", () => {
    expect(() =>
      managedConfig({ permissions: "everything" as unknown as "ask" }, undefined),
    ).toThrow(UsageError);
    expect(() =>
      managedConfig(
        { config: { experimental: { continue_loop_on_deny: true } }, continueAfterReject: false },
        undefined,
      ),
    ).toThrow(UsageError);
  });

  it("leaves the options' config as it was", () => {
    const config = { model: "a/b", experimental: { batch_tool: true } };
    managedConfig({ config, continueAfterReject: false }, { model: "demo/demo-1" });
    expect(config).toEqual({ model: "a/b", experimental: { batch_tool: true } });
  });
});
