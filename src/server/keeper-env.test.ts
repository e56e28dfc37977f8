import { describe, expect, it } from "vitest";
import { keeperEnv } from "./server-keeper.js";

describe("keeperEnv", () => {
  it("keeps the bridge's environment but its own secrets, and runs Electron as node", () => {
    const env = keeperEnv({
      PATH: "/usr/bin",
      HOME: "/home/me",
      OCB_STORE_KEY: "k1:secret",
      OCB_TOKEN: "token",
      OCB_CLUSTER_SECRET: "cluster",
    });
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/home/me", ELECTRON_RUN_AS_NODE: "1" });
  });
});
