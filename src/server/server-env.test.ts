import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { buildServerEnv, serverUsername } from "./server-env.js";

const userEnv: NodeJS.ProcessEnv = {
  PATH: "/usr/bin",
  HOME: "/home/me",
  XDG_CONFIG_HOME: "/home/me/.config",
  XDG_DATA_HOME: "/home/me/.local/share",
  OPENCODE_CONFIG: "/home/me/opencode.json",
  OPENCODE_CONFIG_DIR: "/home/me/.opencode-extra",
  OPENCODE_DB: "/home/me/db.sqlite",
  OPENCODE_SERVER_PASSWORD: "the-users-own",
  OPENCODE_SERVER_USERNAME: "someone",
  OPENCODE_CONFIG_CONTENT: '{"model":"mine/model","theme":"dark"}',
};

const isolatedEnv = {
  XDG_DATA_HOME: "/tmp/ocb-opencode-x/data",
  XDG_CACHE_HOME: "/tmp/ocb-opencode-x/cache",
  XDG_CONFIG_HOME: "/tmp/ocb-opencode-x/config",
  XDG_STATE_HOME: "/tmp/ocb-opencode-x/state",
};

function config(env: Record<string, string>): unknown {
  return JSON.parse(env.OPENCODE_CONFIG_CONTENT ?? "null");
}

describe("buildServerEnv", () => {
  it("isolated: points XDG roots at the temp dir and drops the user's OPENCODE_* settings", () => {
    const env = buildServerEnv({
      baseEnv: userEnv,
      isolatedEnv,
      extraEnv: { MY_FLAG: "1" },
      password: "pw",
      config: { model: "demo/demo-1" },
    });
    expect(env).toMatchObject({ ...isolatedEnv, PATH: "/usr/bin", HOME: "/home/me", MY_FLAG: "1" });
    for (const name of ["OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "OPENCODE_DB"]) {
      expect(env[name]).toBeUndefined();
    }
    expect(env.OPENCODE_SERVER_PASSWORD).toBe("pw");
    expect(env.OPENCODE_SERVER_USERNAME).toBeUndefined();
    expect(config(env)).toEqual({ autoupdate: false, share: "disabled", model: "demo/demo-1" });
  });

  it("passes none of the bridge's own secrets, and what the caller names", () => {
    const env = buildServerEnv({
      baseEnv: { ...userEnv, OCB_TOKEN: "t", OCB_STORE: "postgres://u:pw@db/x", PGPASSWORD: "pw" },
      isolatedEnv,
      extraEnv: undefined,
      passEnv: ["PGPASSWORD"],
      password: "pw",
      config: undefined,
    });
    expect(env.OCB_TOKEN).toBeUndefined();
    expect(env.OCB_STORE).toBeUndefined();
    expect(env.PGPASSWORD).toBe("pw");
  });

  it("inheriting the user's config sets no XDG variable of its own", () => {
    const base = { PATH: "/usr/bin", HOME: "/home/me", OPENCODE_CONFIG: "/home/me/oc.json" };
    const env = buildServerEnv({
      baseEnv: base,
      isolatedEnv: undefined,
      extraEnv: undefined,
      password: undefined,
      config: undefined,
    });
    expect(Object.keys(env).filter((name) => name.startsWith("XDG_"))).toEqual([]);
    expect(env.OPENCODE_CONFIG).toBe("/home/me/oc.json");
    expect(env.OPENCODE_SERVER_PASSWORD).toBeUndefined();
  });

  it("inheriting keeps the user's XDG roots and config content underneath ours, but not their auth", () => {
    const env = buildServerEnv({
      baseEnv: userEnv,
      isolatedEnv: undefined,
      extraEnv: undefined,
      password: "pw",
      config: { model: "demo/demo-1", autoupdate: true },
    });
    expect(env.XDG_CONFIG_HOME).toBe("/home/me/.config");
    expect(env.OPENCODE_SERVER_PASSWORD).toBe("pw");
    expect(env.OPENCODE_SERVER_USERNAME).toBeUndefined();
    expect(config(env)).toEqual({
      autoupdate: true,
      share: "disabled",
      theme: "dark",
      model: "demo/demo-1",
    });
  });

  it("lets the caller's config override the managed defaults", () => {
    const env = buildServerEnv({
      baseEnv: {},
      isolatedEnv,
      extraEnv: undefined,
      password: undefined,
      config: { share: "manual" },
    });
    expect(config(env)).toEqual({ autoupdate: false, share: "manual" });
  });

  it("adds the bridge's plugins after the config's own, inherited or given", () => {
    const inherited = buildServerEnv({
      baseEnv: { ...userEnv, OPENCODE_CONFIG_CONTENT: '{"plugin":["theirs"]}' },
      isolatedEnv: undefined,
      extraEnv: undefined,
      password: undefined,
      config: undefined,
      plugins: ["file:///ocb/hide.js"],
    });
    expect(config(inherited)).toMatchObject({ plugin: ["theirs", "file:///ocb/hide.js"] });
    const given = buildServerEnv({
      baseEnv: userEnv,
      isolatedEnv,
      extraEnv: undefined,
      password: undefined,
      config: { plugin: [["mine", { a: 1 }]] },
      plugins: ["file:///ocb/hide.js"],
    });
    expect(config(given)).toMatchObject({ plugin: [["mine", { a: 1 }], "file:///ocb/hide.js"] });
    expect(() =>
      buildServerEnv({
        baseEnv: userEnv,
        isolatedEnv,
        extraEnv: undefined,
        password: undefined,
        config: { plugin: "mine" },
        plugins: ["file:///ocb/hide.js"],
      }),
    ).toThrow(UsageError);
  });

  it("refuses variables that have their own option", () => {
    const base = { baseEnv: {}, isolatedEnv, password: undefined, config: undefined };
    expect(() => buildServerEnv({ ...base, extraEnv: { OPENCODE_SERVER_PASSWORD: "x" } })).toThrow(
      /`password` option/,
    );
    expect(() => buildServerEnv({ ...base, extraEnv: { OPENCODE_CONFIG_CONTENT: "{}" } })).toThrow(
      UsageError,
    );
  });

  it("refuses a config that is not JSON and a broken inherited OPENCODE_CONFIG_CONTENT", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() =>
      buildServerEnv({
        baseEnv: {},
        isolatedEnv,
        extraEnv: undefined,
        password: undefined,
        config: cyclic,
      }),
    ).toThrow(UsageError);
    expect(() =>
      buildServerEnv({
        baseEnv: { OPENCODE_CONFIG_CONTENT: "[1]" },
        isolatedEnv: undefined,
        extraEnv: undefined,
        password: undefined,
        config: undefined,
      }),
    ).toThrow(/not a JSON object/);
  });
});

describe("serverUsername", () => {
  it("follows OPENCODE_SERVER_USERNAME and defaults to opencode", () => {
    expect(serverUsername({})).toBe("opencode");
    expect(serverUsername({ OPENCODE_SERVER_USERNAME: "bridge" })).toBe("bridge");
  });
});
