/**
 * Finds the `opencode` executable. npm installs it as a per-platform package
 * (`opencode-<platform>-<arch>[-baseline][-musl]`, an optional dependency of `opencode-ai`),
 * so it is resolved through Node's module resolution rather than `PATH`: the version
 * then matches the one this library was built against. `opencode-ai` is itself an optional
 * dependency: a program that only attaches to a running server does not need it.
 */
import {
  accessSync,
  closeSync,
  constants,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { UsageError } from "../errors.js";

/** The OpenCode version this library is built and tested against. */
export const OPENCODE_VERSION = "1.18.33";

/** Environment variable that names the binary to use instead of the installed one. */
export const OPENCODE_BIN_ENV = "OPENCODE_BIN";

/** Which build of OpenCode fits the machine. */
export interface PlatformTarget {
  platform: NodeJS.Platform;
  arch: string;
  /** Linux with musl libc (Alpine) instead of glibc. */
  musl: boolean;
  /** The CPU has AVX2; without it only the `-baseline` builds run. */
  avx2: boolean;
}

export interface ResolveBinaryOptions {
  /** Where `OPENCODE_BIN` is read from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Resolves `"<package>/package.json"` to a file path, throwing when it is not installed. */
  resolvePackageJson?: (specifier: string) => string;
  /** The machine to resolve for (default: this one). */
  target?: PlatformTarget;
}

/** Returns the path of the `opencode` executable to run; throws UsageError saying how to fix it. */
export function resolveOpencodeBinary(options: ResolveBinaryOptions = {}): string {
  const env = options.env ?? process.env;
  const override = env[OPENCODE_BIN_ENV];
  if (override !== undefined && override !== "") return checkOverride(resolve(override));

  const target = options.target ?? currentTarget();
  const resolvePackageJson = options.resolvePackageJson ?? defaultResolver();
  const exe = target.platform === "win32" ? "opencode.exe" : "opencode";
  const names = platformPackageNames(target);
  for (const name of names) {
    const binary = installedFile(resolvePackageJson, name, join("bin", exe));
    if (binary !== undefined && isExecutableFile(binary)) return binary;
  }
  // opencode-ai's postinstall copies the platform binary over its own stub; that copy is
  // all there is when optional dependencies were left out.
  const copy = installedFile(resolvePackageJson, "opencode-ai", join("bin", "opencode.exe"));
  if (copy !== undefined && isExecutableFile(copy) && isNativeExecutable(copy)) return copy;

  const expected = names[0] ?? `opencode-${platformName(target.platform)}-${target.arch}`;
  if (installedFile(resolvePackageJson, "opencode-ai", "package.json") === undefined) {
    // It is an optional dependency (attaching to a running server needs no binary): say so.
    throw new UsageError(
      `Starting an OpenCode server needs the opencode-ai package (an optional dependency of ` +
        `opencode-bridge), and it is not installed. Fix it one of these ways: ` +
        `run \`npm install opencode-ai@${OPENCODE_VERSION}\` (which installs ${expected}), ` +
        `set ${OPENCODE_BIN_ENV}=/path/to/opencode, or attach to a server that runs already ` +
        `(the bridge's \`attach\` option, or \`attachOpencode\`).`,
    );
  }
  throw new UsageError(
    `No opencode binary found: none of ${names.join(", ") || expected} is installed ` +
      `for ${target.platform}-${target.arch}. Fix it either way: ` +
      `run \`npm install opencode-ai@${OPENCODE_VERSION}\` (which installs ${expected}), ` +
      `or set ${OPENCODE_BIN_ENV}=/path/to/opencode.`,
  );
}

/** The platform packages that can run on `target`, best first (the order opencode-ai's postinstall uses). */
export function platformPackageNames(target: PlatformTarget): string[] {
  const base = `opencode-${platformName(target.platform)}-${target.arch}`;
  const x64 = target.arch === "x64";
  const preferBaseline = x64 && !target.avx2;
  if (target.platform === "linux") {
    if (!x64) return target.musl ? [`${base}-musl`, base] : [base, `${base}-musl`];
    const glibc = preferBaseline ? [`${base}-baseline`, base] : [base, `${base}-baseline`];
    const musl = preferBaseline
      ? [`${base}-baseline-musl`, `${base}-musl`]
      : [`${base}-musl`, `${base}-baseline-musl`];
    return target.musl ? [...musl, ...glibc] : [...glibc, ...musl];
  }
  if (!x64) return [base];
  return preferBaseline ? [`${base}-baseline`, base] : [base, `${base}-baseline`];
}

function platformName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "windows" : platform;
}

function checkOverride(path: string): string {
  let problem: string | undefined;
  try {
    if (!statSync(path).isFile()) problem = "is not a file";
    else if (!isExecutableFile(path)) problem = "is not executable (chmod +x it)";
  } catch {
    problem = "does not exist";
  }
  if (problem !== undefined) {
    throw new UsageError(
      `${OPENCODE_BIN_ENV}=${path} ${problem}; point ${OPENCODE_BIN_ENV} at the opencode ` +
        `binary, or unset it to use the one from \`npm install opencode-ai@${OPENCODE_VERSION}\``,
    );
  }
  return path;
}

function installedFile(
  resolvePackageJson: (specifier: string) => string,
  packageName: string,
  file: string,
): string | undefined {
  try {
    return join(dirname(resolvePackageJson(`${packageName}/package.json`)), file);
  } catch {
    return undefined; // not installed
  }
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

// ELF, Mach-O (both byte orders, 32/64 bit, universal) and PE; the uninstalled stub is a shell script.
function isNativeExecutable(path: string): boolean {
  const header = Buffer.alloc(4);
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    if (readSync(fd, header, 0, 4, 0) < 4) return false;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const magic = header.readUInt32BE(0);
  return (
    magic === 0x7f454c46 ||
    [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic) ||
    header.subarray(0, 2).toString("latin1") === "MZ"
  );
}

function defaultResolver(): (specifier: string) => string {
  const require = createRequire(import.meta.url);
  return (specifier) => require.resolve(specifier);
}

function currentTarget(): PlatformTarget {
  return { platform: process.platform, arch: process.arch, musl: isMusl(), avx2: hasAvx2() };
}

function isMusl(): boolean {
  if (process.platform !== "linux") return false;
  // Node's diagnostic report names the glibc it runs on; under musl that field is absent.
  const report: unknown = process.report?.getReport();
  if (typeof report !== "object" || report === null || !("header" in report)) return false;
  const header = report.header;
  return typeof header === "object" && header !== null && !("glibcVersionRuntime" in header);
}

function hasAvx2(): boolean {
  if (process.arch !== "x64") return false;
  if (process.platform !== "linux") return true; // both builds are tried anyway
  try {
    return /(^|\s)avx2(\s|$)/m.test(readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return true;
  }
}
