import { describe, expect, it } from "vitest";
import { storeSpec } from "./store-access.js";

describe("storeSpec", () => {
  const env = { XDG_DATA_HOME: "/data" };
  it("takes --store first, then OCB_STORE, then the default file", () => {
    expect(storeSpec("/a.db", { ...env, OCB_STORE: "postgres://h/db" })).toBe("/a.db");
    expect(storeSpec(undefined, { ...env, OCB_STORE: "postgres://h/db" })).toBe("postgres://h/db");
    expect(storeSpec(undefined, { ...env, OCB_STORE: "" })).toBe("/data/opencode-bridge/store.db");
    expect(storeSpec(undefined, env)).toBe("/data/opencode-bridge/store.db");
  });
});
