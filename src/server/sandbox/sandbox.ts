/**
 * A sandbox around OpenCode and everything it starts, built on bubblewrap (the mechanism of
 * Flatpak and of other agents' Linux sandboxes): what `SandboxSettings` allow, as the command
 * line that wraps `opencode serve` (or `opencode run`). See docs/security.md.
 */
import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { UsageError } from "../../errors.js";
import { isWithin } from "../../util/path-within.js";
import { bwrapArgs, type SandboxLayout } from "./bwrap-args.js";
import { offlineShellScript } from "./offline-shell.js";
import {
  type SandboxMode,
  type SandboxOptions,
  type SandboxSettings,
  sandboxSettings,
} from "./sandbox-options.js";
import { secretPaths } from "./secret-paths.js";

/** A command to spawn: `inputs[i]` is written to the child's file descriptor `3 + i`. */
export interface WrappedCommand {
  binary: string;
  args: string[];
  inputs: string[];
}

/**
 * Inside the sandbox, a caller that is root on the host is this user: the offline shell's
 * nested user namespace cannot map uid 0 without a capability the sandbox drops.
 */
const UID_INSTEAD_OF_ROOT = 1000;

/** Temp directories made private (empty, writable, gone with the sandbox) when present. */
const TEMP_DIRS = ["/tmp", "/var/tmp"];

/** File descriptor that carries the offline shell's script to bubblewrap. */
const SCRIPT_FD = 3;

export interface SandboxPlace {
  /** The session directory: writable in `workspace-write`, readable in every mode. */
  directory: string;
  /** The OpenCode executable: readable in every mode (even under the private `/tmp`). */
  binary: string;
  /** OpenCode's own config, data, cache and state dirs: writable in every mode. */
  ownState: readonly string[];
}

export class Sandbox {
  readonly settings: SandboxSettings;
  readonly #bwrap: string;
  readonly #layout: Omit<SandboxLayout, "chdir">;

  private constructor(
    settings: SandboxSettings,
    bwrap: string,
    layout: Omit<SandboxLayout, "chdir">,
  ) {
    this.settings = settings;
    this.#bwrap = bwrap;
    this.#layout = layout;
  }

  /**
   * The sandbox `given` asks for, around `place`; `undefined` when it asks for none. Throws a
   * UsageError when bubblewrap is missing or cannot make a sandbox here (never runs without).
   */
  static async prepare(
    given: SandboxMode | SandboxOptions | undefined,
    place: SandboxPlace,
  ): Promise<Sandbox | undefined> {
    const settings = sandboxSettings(given);
    if (settings.mode === "off") return undefined;
    const bwrap = findBwrap();
    const layout = sandboxLayout(settings, place);
    await probe(bwrap, layout);
    return new Sandbox(settings, bwrap, layout);
  }

  /** `binary args…` run inside, starting in `cwd`. */
  wrap(binary: string, args: readonly string[], cwd: string): WrappedCommand {
    const layout = { ...this.#layout, chdir: cwd };
    return {
      binary: this.#bwrap,
      args: [...bwrapArgs(layout), "--", binary, ...args],
      inputs: layout.offlineShell === undefined ? [] : [offlineShellScript(this.#bwrap)],
    };
  }
}

function sandboxLayout(
  settings: SandboxSettings,
  place: SandboxPlace,
): Omit<SandboxLayout, "chdir"> {
  const directory = realpathSync(place.directory);
  const ownState = place.ownState.map((dir) => realpathSync(dir));
  const writable =
    settings.mode === "workspace-write"
      ? [
          directory,
          ...settings.writable.map((dir) => existingDirectory("writable", dir)),
          ...ownState,
        ]
      : ownState;
  const temp = privateTemp();
  const underTemp = (path: string) => temp.some((dir) => isWithin(path, dir));
  const readable = [dirname(realpathSync(place.binary)), directory].filter(
    (path) => underTemp(path) && !writable.includes(path),
  );
  const visible = [directory, ...writable, ...readable];
  for (const path of settings.deny) {
    const real = realOrUndefined(path);
    const holds = real === undefined ? undefined : visible.find((dir) => isWithin(dir, real));
    if (holds !== undefined) {
      throw new UsageError(
        `sandbox deny path ${path} holds ${holds}, which the agent must reach; deny something inside it instead`,
      );
    }
  }
  const hidden = new Map<string, boolean>();
  for (const path of [...secretPaths(homedir(), visible), ...settings.deny]) {
    const real = realOrUndefined(path);
    if (real === undefined || visible.some((dir) => isWithin(dir, real))) continue;
    hidden.set(real, statSync(real).isDirectory());
  }
  const uid = process.getuid?.() ?? UID_INSTEAD_OF_ROOT;
  const gid = process.getgid?.() ?? UID_INSTEAD_OF_ROOT;
  return {
    readable,
    writable,
    hidden: [...hidden].map(([path, isDirectory]) => ({ path, directory: isDirectory })),
    privateTemp: temp,
    offlineShell:
      settings.network === "off"
        ? { shell: realpathSync("/bin/sh"), scriptFd: SCRIPT_FD }
        : undefined,
    uid: uid === 0 ? UID_INSTEAD_OF_ROOT : uid,
    gid: gid === 0 ? UID_INSTEAD_OF_ROOT : gid,
  };
}

/**
 * The private temp dirs, `TMPDIR` last: OpenCode and the agent's commands inherit it, and it is
 * often inside `/tmp` (pam_tmpdir's `/tmp/user/UID`, a test run's own dir). Under the empty
 * `/tmp` it would not exist: OpenCode could not unpack the native libraries it carries, nor
 * `mktemp` make a file. Listed after `/tmp`, it is made again inside, private and empty.
 */
function privateTemp(): string[] {
  const dirs = TEMP_DIRS.filter((dir) => existsSync(dir));
  const tmpdir = process.env.TMPDIR;
  if (tmpdir?.startsWith("/") && existsSync(tmpdir)) {
    const real = realpathSync(tmpdir);
    if (!dirs.includes(real)) dirs.push(real);
  }
  return dirs;
}

function existingDirectory(what: string, path: string): string {
  const real = realOrUndefined(path);
  if (real === undefined || !statSync(real).isDirectory()) {
    throw new UsageError(`sandbox ${what} directory ${path} does not exist; create it first`);
  }
  return real;
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

const INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or run with the sandbox off";

/** `bwrap` on the PATH. */
function findBwrap(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "bwrap");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new UsageError(
    `the sandbox needs bubblewrap (bwrap), which is not on the PATH: ${INSTALL_HINT}`,
  );
}

/** How long bubblewrap may take to run `sh -c :` in the sandbox before it counts as failing. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Runs a no-op in the sandbox once, so that a bubblewrap that cannot make one here (user
 * namespaces disabled, an AppArmor restriction) is said at the start, with its own words,
 * rather than as a server that exited.
 */
async function probe(bwrap: string, layout: Omit<SandboxLayout, "chdir">): Promise<void> {
  const args = [
    ...bwrapArgs({ ...layout, offlineShell: undefined, chdir: "/" }),
    "--",
    "/bin/sh",
    "-c",
    ":",
  ];
  const failure = await new Promise<string | undefined>((resolve) => {
    execFile(bwrap, args, { timeout: PROBE_TIMEOUT_MS }, (error, _stdout, stderr) => {
      resolve(error === null ? undefined : stderr.trim() || error.message);
    });
  });
  if (failure !== undefined) {
    throw new UsageError(
      `bubblewrap cannot make a sandbox on this machine (${failure}); unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, or AppArmor's restriction on Ubuntu 24.04+), or run with the sandbox off`,
    );
  }
}
