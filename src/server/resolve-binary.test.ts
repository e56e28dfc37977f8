import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import {
  type PlatformTarget,
  platformPackageNames,
  resolveOpencodeBinary,
} from "./resolve-binary.js";

const linuxX64: PlatformTarget = { platform: "linux", arch: "x64", musl: false, avx2: true };
const notInstalled = (specifier: string): string => {
  throw new Error(`Cannot find module '${specifier}'`);
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-resolve-test-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Lays out `node_modules/<name>/package.json` and `bin/<file>` with the given content. */
function installFake(name: string, file: string, content: string | Buffer, mode = 0o755): string {
  const packageDir = join(dir, "node_modules", name);
  mkdirSync(join(packageDir, "bin"), { recursive: true });
  writeFileSync(join(packageDir, "package.json"), JSON.stringify({ name }));
  const binary = join(packageDir, "bin", file);
  writeFileSync(binary, content);
  chmodSync(binary, mode);
  return binary;
}

function fakeResolver(installed: string[]): (specifier: string) => string {
  return (specifier) => {
    const name = specifier.replace(/\/package\.json$/, "");
    if (!installed.includes(name)) return notInstalled(specifier);
    return join(dir, "node_modules", name, "package.json");
  };
}

describe("resolveOpencodeBinary", () => {
  it("finds the installed platform package", () => {
    const binary = resolveOpencodeBinary({ env: {} });
    expect(binary).toMatch(/node_modules\/opencode-[a-z0-9-]+\/bin\/opencode(\.exe)?$/);
  });

  it("uses OPENCODE_BIN when it names an executable", () => {
    const binary = installFake("custom", "opencode", "#!/bin/sh\n");
    expect(resolveOpencodeBinary({ env: { OPENCODE_BIN: binary } })).toBe(binary);
  });

  it("names the path when OPENCODE_BIN does not exist", () => {
    const missing = join(dir, "no", "such", "opencode");
    expect(() => resolveOpencodeBinary({ env: { OPENCODE_BIN: missing } })).toThrow(UsageError);
    expect(() => resolveOpencodeBinary({ env: { OPENCODE_BIN: missing } })).toThrow(
      `OPENCODE_BIN=${missing} does not exist`,
    );
  });

  it("says so when OPENCODE_BIN is not executable", () => {
    const binary = installFake("custom", "opencode", "#!/bin/sh\n", 0o644);
    expect(() => resolveOpencodeBinary({ env: { OPENCODE_BIN: binary } })).toThrow(
      /is not executable/,
    );
  });

  it("names both fixes when neither OPENCODE_BIN nor a platform package exists", () => {
    let error: unknown;
    try {
      resolveOpencodeBinary({ env: {}, resolvePackageJson: notInstalled, target: linuxX64 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toContain("npm install opencode-ai@1.18.33");
    expect(message).toContain("opencode-linux-x64");
    expect(message).toContain("OPENCODE_BIN=/path/to/opencode");
  });

  it("says opencode-ai is an optional dependency to install when it is absent", () => {
    // Node's own resolution from an empty directory: nothing is installed there.
    const resolvePackageJson = createRequire(join(dir, "entry.js")).resolve;
    let error: unknown;
    try {
      resolveOpencodeBinary({ env: {}, resolvePackageJson, target: linuxX64 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toContain("needs the opencode-ai package (an optional dependency");
    expect(message).toContain("npm install opencode-ai@1.18.33");
    expect(message).toContain("OPENCODE_BIN=/path/to/opencode");
    expect(message).toContain("attach to a server that runs already");
  });

  it("takes the first installed variant that has an executable binary", () => {
    installFake("opencode-linux-x64", "opencode", "#!/bin/sh\n", 0o644); // broken install
    const baseline = installFake("opencode-linux-x64-baseline", "opencode", "#!/bin/sh\n");
    const resolvePackageJson = fakeResolver(["opencode-linux-x64", "opencode-linux-x64-baseline"]);
    expect(resolveOpencodeBinary({ env: {}, resolvePackageJson, target: linuxX64 })).toBe(baseline);
  });

  it("uses bin/opencode.exe on Windows", () => {
    const exe = installFake("opencode-windows-x64", "opencode.exe", "MZ fake");
    const resolvePackageJson = fakeResolver(["opencode-windows-x64"]);
    const target: PlatformTarget = { platform: "win32", arch: "x64", musl: false, avx2: true };
    expect(resolveOpencodeBinary({ env: {}, resolvePackageJson, target })).toBe(exe);
  });

  it("falls back to opencode-ai's copied binary, but not to its uninstalled stub", () => {
    const resolvePackageJson = fakeResolver(["opencode-ai"]);
    installFake("opencode-ai", "opencode.exe", 'echo "postinstall was not run" >&2\nexit 1\n');
    expect(() => resolveOpencodeBinary({ env: {}, resolvePackageJson, target: linuxX64 })).toThrow(
      UsageError,
    );
    const copy = installFake(
      "opencode-ai",
      "opencode.exe",
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2]),
    );
    expect(resolveOpencodeBinary({ env: {}, resolvePackageJson, target: linuxX64 })).toBe(copy);
  });
});

describe("platformPackageNames", () => {
  it("prefers the plain build, then baseline, then musl on glibc x64 with AVX2", () => {
    expect(platformPackageNames(linuxX64)).toEqual([
      "opencode-linux-x64",
      "opencode-linux-x64-baseline",
      "opencode-linux-x64-musl",
      "opencode-linux-x64-baseline-musl",
    ]);
  });

  it("prefers baseline without AVX2 and musl on musl", () => {
    expect(platformPackageNames({ ...linuxX64, avx2: false, musl: true })).toEqual([
      "opencode-linux-x64-baseline-musl",
      "opencode-linux-x64-musl",
      "opencode-linux-x64-baseline",
      "opencode-linux-x64",
    ]);
    expect(
      platformPackageNames({ platform: "linux", arch: "arm64", musl: true, avx2: false }),
    ).toEqual(["opencode-linux-arm64-musl", "opencode-linux-arm64"]);
  });

  it("maps win32 to windows and has no variants on arm64 macOS", () => {
    expect(
      platformPackageNames({ platform: "win32", arch: "x64", musl: false, avx2: true }),
    ).toEqual(["opencode-windows-x64", "opencode-windows-x64-baseline"]);
    expect(
      platformPackageNames({ platform: "darwin", arch: "arm64", musl: false, avx2: false }),
    ).toEqual(["opencode-darwin-arm64"]);
  });
});
