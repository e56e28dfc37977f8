import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sidecarIdOf } from "./relay-identity.js";
import {
  defaultRelayIdentityPath,
  loadOrCreateRelayIdentity,
  readRelayIdentity,
} from "./relay-identity-file.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocb-relay-identity-"));
  dirs.push(dir);
  return dir;
}

describe("the relay identity file", () => {
  it("is created owner-only on first use and gives the same identity after", () => {
    const path = join(tempDir(), "nested", "relay-identity.json");
    const first = loadOrCreateRelayIdentity(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = loadOrCreateRelayIdentity(path);
    expect(sidecarIdOf(again.publicKey)).toBe(sidecarIdOf(first.publicKey));
  });

  it("is refused when others may read it, or when it holds no key", () => {
    const path = join(tempDir(), "relay-identity.json");
    loadOrCreateRelayIdentity(path);
    chmodSync(path, 0o644);
    expect(() => readRelayIdentity(path)).toThrow("can be read by others (mode 644): chmod 600");
    writeFileSync(path, "{}", { mode: 0o600 });
    chmodSync(path, 0o600);
    expect(() => readRelayIdentity(path)).toThrow("is not one");
  });

  it("lives in the bridge's data directory by default", () => {
    expect(defaultRelayIdentityPath({ XDG_DATA_HOME: "/data" })).toBe(
      "/data/opencode-bridge/relay-identity.json",
    );
  });
});
