import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { opencodeDataDir } from "./opencode-data.js";

const env = { XDG_DATA_HOME: "/data-home" };

describe("opencodeDataDir", () => {
  it("is the directory given, resolved", () => {
    expect(opencodeDataDir("kept", "postgres://u:p@db/x", env)).toBe(resolve("kept"));
  });

  it("is `opencode/` beside a SQLite store file", () => {
    expect(opencodeDataDir(undefined, "/srv/ocb/store.db", env)).toBe("/srv/ocb/opencode");
  });

  it("is a directory of its own per Postgres store in the user's data directory, the same whatever the password", () => {
    const dir = opencodeDataDir(undefined, "postgres://ocb:secret@db.example:5432/bridge", env);
    expect(dir).toMatch(/^\/data-home\/opencode-bridge\/opencode\/postgres-[0-9a-f]{16}$/);
    expect(dir).not.toContain("secret");
    expect(opencodeDataDir(undefined, "postgres://ocb:other@db.example:5432/bridge", env)).toBe(
      dir,
    );
    expect(
      opencodeDataDir(undefined, "postgresql://ocb:secret@db.example:5432/other", env),
    ).not.toBe(dir);
    expect(
      opencodeDataDir(undefined, "postgres://ocb:secret@db2.example:5432/bridge", env),
    ).not.toBe(dir);
  });

  it("is a temp dir (undefined) for a store in memory: its sessions end with the process", () => {
    expect(opencodeDataDir(undefined, ":memory:", env)).toBeUndefined();
  });

  it("falls back on ~/.local/share without an absolute XDG_DATA_HOME", () => {
    const dir = opencodeDataDir(undefined, "postgres://ocb@db/bridge", { XDG_DATA_HOME: "rel" });
    expect(dir).toContain(join(".local", "share", "opencode-bridge", "opencode", "postgres-"));
  });
});
