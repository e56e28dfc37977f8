import { describe, expect, it } from "vitest";
import { passedEnv } from "./passed-env.js";

/** A bridge's environment as an operator might have it: basics, provider keys, secrets. */
const bridgeEnv: NodeJS.ProcessEnv = {
  PATH: "/usr/bin",
  HOME: "/home/me",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  HTTPS_PROXY: "http://proxy:3128",
  NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
  ANTHROPIC_API_KEY: "sk-ant",
  AWS_REGION: "eu-west-1",
  GOOGLE_APPLICATION_CREDENTIALS: "/home/me/gcp.json",
  OCB_TOKEN: "the-sidecar-token",
  OCB_ATTACH_PASSWORD: "the-attached-servers-password",
  OCB_CLUSTER_SECRET: "the-cluster-secret",
  OCB_STORE: "postgres://ocb:db-password@db/ocb",
  OCB_STORE_KEY: "k1:the-store-encryption-key",
  OCB_API_KEY: "looks-like-a-provider-key",
  PGPASSWORD: "db-password",
  DATABASE_URL: "postgres://app:secret@db/app",
  GITHUB_TOKEN: "ghp_x",
  MY_TOOL_HOME: "/opt/tool",
  MY_TOOL_MODE: "fast",
  OPENCODE_CONFIG: "/home/me/opencode.json",
  XDG_CONFIG_HOME: "/home/me/.config",
};

describe("passedEnv", () => {
  it("passes the basics, locale, proxies and provider keys; none of the bridge's secrets", () => {
    expect(passedEnv(bridgeEnv, { userSetup: false })).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/me",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      HTTPS_PROXY: "http://proxy:3128",
      NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
      ANTHROPIC_API_KEY: "sk-ant",
      AWS_REGION: "eu-west-1",
      GOOGLE_APPLICATION_CREDENTIALS: "/home/me/gcp.json",
    });
  });

  it("passes the user's OpenCode setup only when the server runs with it", () => {
    const passed = passedEnv(bridgeEnv, { userSetup: true });
    expect(passed.OPENCODE_CONFIG).toBe("/home/me/opencode.json");
    expect(passed.XDG_CONFIG_HOME).toBe("/home/me/.config");
    expect(passed.OCB_TOKEN).toBeUndefined();
    expect(passed.OCB_STORE_KEY).toBeUndefined();
  });

  it("passes the names the caller gives, exact or as a prefix; never OCB_*", () => {
    const passed = passedEnv(bridgeEnv, {
      userSetup: false,
      passEnv: ["GITHUB_TOKEN", "MY_TOOL_*", "OCB_TOKEN", "OCB_*"],
    });
    expect(passed).toMatchObject({
      GITHUB_TOKEN: "ghp_x",
      MY_TOOL_HOME: "/opt/tool",
      MY_TOOL_MODE: "fast",
    });
    expect(Object.keys(passed).filter((name) => name.startsWith("OCB_"))).toEqual([]);
    expect(passed.PGPASSWORD).toBeUndefined();
  });
});
