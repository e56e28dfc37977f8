/**
 * What a sandbox around OpenCode lets it do (see docs/security.md for what each mode stops and
 * what it does not). OpenCode has none of its own: every tool it runs (the `bash` tool's
 * commands, its write and edit tools) can do whatever its user can on the host.
 */
import { UsageError } from "../../errors.js";

export const SANDBOX_MODES = ["off", "read-only", "workspace-write"] as const;
/**
 * - `off`: no sandbox (OpenCode's own permissions only).
 * - `read-only`: nothing writable but OpenCode's own state and a private `/tmp`.
 * - `workspace-write`: also the session directory (and `writable`).
 * In both sandboxed modes the user's secrets (`~/.ssh`, `~/.aws`, …, other users' homes, and
 * `deny`) are not readable at all.
 */
export type SandboxMode = (typeof SANDBOX_MODES)[number];

export const SANDBOX_NETWORKS = ["on", "off"] as const;
/** `off`: commands the `bash` tool runs have no network; OpenCode still reaches its provider. */
export type SandboxNetwork = (typeof SANDBOX_NETWORKS)[number];

export interface SandboxOptions {
  mode: SandboxMode;
  /** Default `on`. */
  network?: SandboxNetwork;
  /** More paths (absolute) that are not readable inside, besides the built-in list. */
  deny?: readonly string[];
  /** More directories (absolute) writable in `workspace-write`, besides the session directory. */
  writable?: readonly string[];
}

/** The options with every default filled in and checked. */
export interface SandboxSettings {
  mode: SandboxMode;
  network: SandboxNetwork;
  deny: readonly string[];
  writable: readonly string[];
}

/** `sandbox` as given (a mode or the options), checked; `undefined` means off. */
export function sandboxSettings(given: SandboxMode | SandboxOptions | undefined): SandboxSettings {
  const options: SandboxOptions =
    given === undefined ? { mode: "off" } : typeof given === "string" ? { mode: given } : given;
  if (!SANDBOX_MODES.includes(options.mode)) {
    throw new UsageError(
      `sandbox mode must be one of ${SANDBOX_MODES.join(", ")}, got ${JSON.stringify(options.mode)}`,
    );
  }
  const network = options.network ?? "on";
  if (!SANDBOX_NETWORKS.includes(network)) {
    throw new UsageError(`sandbox network must be on or off, got ${JSON.stringify(network)}`);
  }
  if (options.mode === "off" && network === "off") {
    throw new UsageError(
      "the network of tool commands can be cut only inside a sandbox: pass a sandbox mode (read-only or workspace-write) too",
    );
  }
  const deny = absolutePaths("sandbox deny", options.deny);
  const writable = absolutePaths("sandbox writable", options.writable);
  if (writable.length > 0 && options.mode !== "workspace-write") {
    throw new UsageError(
      `writable directories apply to the workspace-write sandbox only (the mode is ${options.mode})`,
    );
  }
  return { mode: options.mode, network, deny, writable };
}

function absolutePaths(what: string, paths: readonly string[] | undefined): string[] {
  for (const path of paths ?? []) {
    if (typeof path !== "string" || !path.startsWith("/") || path.includes("\0")) {
      throw new UsageError(`${what} paths must be absolute, got ${JSON.stringify(path)}`);
    }
  }
  return [...(paths ?? [])];
}
