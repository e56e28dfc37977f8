import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { chooseBackend, parseModel } from "./bridge-options.js";

describe("chooseBackend", () => {
  it("takes the option first, then OCB_BACKEND, then serve", () => {
    expect(chooseBackend("subprocess", { OCB_BACKEND: "serve-legacy" })).toBe("subprocess");
    expect(chooseBackend(undefined, { OCB_BACKEND: "serve-legacy" })).toBe("serve-legacy");
    expect(chooseBackend(undefined, { OCB_BACKEND: " " })).toBe("serve");
    expect(chooseBackend(undefined, {})).toBe("serve");
  });

  it("refuses anything else, naming where it came from and the choices", () => {
    expect(() => chooseBackend("grpc", {})).toThrow(UsageError);
    expect(() => chooseBackend("grpc", {})).toThrow(
      'backend must be one of serve, serve-legacy, subprocess, got "grpc"',
    );
    expect(() => chooseBackend(undefined, { OCB_BACKEND: "Serve" })).toThrow(/^OCB_BACKEND must/);
  });
});

describe("parseModel", () => {
  it("splits at the first slash: the model id may contain more", () => {
    expect(parseModel("demo/demo-1")).toEqual({ providerID: "demo", modelID: "demo-1" });
    expect(parseModel("openrouter/meta/llama-3")).toEqual({
      providerID: "openrouter",
      modelID: "meta/llama-3",
    });
  });

  it("refuses text without a provider or a model, with an example", () => {
    for (const text of ["demo", "/demo-1", "demo/", ""]) {
      expect(() => parseModel(text), text).toThrow(UsageError);
    }
    expect(() => parseModel("demo")).toThrow(/provider\/model \(for example demo\/demo-1\)/);
  });
});
