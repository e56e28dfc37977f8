import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { chooseBackend } from "./bridge.js";

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
