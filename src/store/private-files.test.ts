import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { canonical } from "../events/build.js";
import { SqliteStore } from "./sqlite-store.js";

const modeOf = (path: string) => statSync(path).mode & 0o777;

const admitted = canonical(
  {
    sessionId: "ses_a",
    turnId: undefined,
    at: 1_800_000_000_000,
    native: { backend: "replay", type: "x", id: "e1" },
  },
  0,
  "input.admitted",
  { inputId: "in_1", text: "hi", delivery: "queue" },
);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-private-"));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

describe("the store's file modes", () => {
  it("creates the file, its WAL and shared-memory files 0600 and its new directories 0700", async () => {
    const path = join(dir, "made", "here", "store.db");
    const store = SqliteStore.open(path);
    try {
      await store.append("ses_a", [admitted]);
      expect(modeOf(path)).toBe(0o600);
      expect(modeOf(`${path}-wal`)).toBe(0o600);
      expect(modeOf(`${path}-shm`)).toBe(0o600);
      expect(modeOf(join(dir, "made", "here"))).toBe(0o700);
      expect(modeOf(join(dir, "made"))).toBe(0o700);
    } finally {
      store.close();
    }
  });

  it("tightens an existing store file and the side files an older bridge left readable", () => {
    const path = join(dir, "store.db");
    SqliteStore.open(path).close();
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      writeFileSync(file, "", { flag: "a" });
      chmodSync(file, 0o644);
    }
    const store = SqliteStore.open(path);
    try {
      expect(modeOf(path)).toBe(0o600);
      expect(modeOf(`${path}-wal`)).toBe(0o600);
      expect(modeOf(`${path}-shm`)).toBe(0o600);
      // A directory the caller named is theirs: left as it is.
      expect(modeOf(dir)).toBe(0o700); // mkdtemp's own mode
    } finally {
      store.close();
    }
  });

  it("tightens the default store's directory when it exists already", () => {
    vi.stubEnv("XDG_DATA_HOME", dir);
    const directory = join(dir, "opencode-bridge");
    mkdirSync(directory);
    chmodSync(directory, 0o755);
    const store = SqliteStore.open(join(directory, "store.db"));
    store.close();
    expect(modeOf(directory)).toBe(0o700);
    expect(modeOf(join(directory, "store.db"))).toBe(0o600);
  });

  it("leaves an existing directory the caller named alone", () => {
    const directory = join(dir, "shared");
    mkdirSync(directory);
    chmodSync(directory, 0o755);
    SqliteStore.open(join(directory, "store.db")).close();
    expect(modeOf(directory)).toBe(0o755);
  });
});
