import { describe, expect, it } from "vitest";
import { defaultStorePath } from "./default-store-path.js";

describe("defaultStorePath", () => {
  it("lives under $XDG_DATA_HOME when it is set", () => {
    expect(defaultStorePath({ XDG_DATA_HOME: "/data" }, "/home/ada")).toBe(
      "/data/opencode-bridge/store.db",
    );
  });

  it("lives under ~/.local/share otherwise, or when XDG_DATA_HOME is relative", () => {
    const fallback = "/home/ada/.local/share/opencode-bridge/store.db";
    expect(defaultStorePath({}, "/home/ada")).toBe(fallback);
    expect(defaultStorePath({ XDG_DATA_HOME: "" }, "/home/ada")).toBe(fallback);
    expect(defaultStorePath({ XDG_DATA_HOME: "data" }, "/home/ada")).toBe(fallback);
  });
});
