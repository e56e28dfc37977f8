/**
 * `--sandbox <mode>`, `--sandbox-network on|off` and `--sandbox-deny <path>` of `ocb run` and
 * `ocb serve`: OpenCode and every tool it runs inside bubblewrap (docs/security.md). The
 * bridge's own transcript store (its files) is hidden from the agent as well: it holds every session's
 * transcript, and the agent has no business reading (or sending) other sessions'; so are the
 * files of its own secrets (`--tls-key`, `--cluster-secret-file`) and the directory of `ocb
 * serve`'s connection file, which holds a sidecar's token.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import {
  SANDBOX_MODES,
  SANDBOX_NETWORKS,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxOptions,
} from "../server/sandbox/sandbox-options.js";
import { choiceOption } from "./choice-option.js";
import { madeServeConnectionDirectory } from "./serve-connection-file.js";

export interface SandboxFlags {
  sandbox?: SandboxMode;
  sandboxNetwork?: SandboxNetwork;
  sandboxDeny: string[];
}

export function addSandboxOptions(command: Command): Command {
  return command
    .addOption(
      choiceOption(
        "--sandbox <mode>",
        "run OpenCode and its tools in bubblewrap: read-only, or workspace-write (the directory only); secrets such as ~/.ssh unreadable (default: off)",
        SANDBOX_MODES,
      ),
    )
    .addOption(
      choiceOption(
        "--sandbox-network <on|off>",
        "off: the commands of the bash tool have no network (OpenCode still reaches its model)",
        SANDBOX_NETWORKS,
      ),
    )
    .option(
      "--sandbox-deny <path>",
      "a path the sandboxed agent cannot read, besides ~/.ssh, ~/.aws, … (repeatable)",
      (value: string, previous: string[]) => [...previous, resolve(value)],
      [] as string[],
    );
}

/**
 * The library's `sandbox` for the flags (`undefined` when off); `store` is the SQLite file of
 * the transcripts, if that is the store, hidden with the files beside it when its directory
 * is not the session directory's.
 */
export function sandboxOf(
  flags: SandboxFlags,
  place: {
    directory: string;
    /** More project directories sessions may be in (`--allow-dir`): writable in workspace-write. */
    allowDirs?: readonly string[];
    store: string | undefined;
    /** Files of the bridge's own secrets (a TLS key, the cluster secret): never the agent's. */
    secretFiles?: readonly (string | undefined)[];
  },
): SandboxOptions | undefined {
  const mode = flags.sandbox ?? "off";
  if (mode === "off") {
    // Refused by the library too; said here in the flags' words.
    if (flags.sandboxNetwork === "off" || flags.sandboxDeny.length > 0) {
      throw new UsageError(
        "--sandbox-network and --sandbox-deny need --sandbox read-only or workspace-write",
      );
    }
    return undefined;
  }
  return {
    mode,
    ...(flags.sandboxNetwork === undefined ? {} : { network: flags.sandboxNetwork }),
    deny: [
      ...flags.sandboxDeny,
      ...storePaths(place),
      ...existing(place.secretFiles ?? []),
      // Any sidecar's token, this one's or one started later: the API answers permission asks.
      madeServeConnectionDirectory(),
    ],
    ...(mode === "workspace-write" && (place.allowDirs ?? []).length > 0
      ? { writable: (place.allowDirs ?? []).map((dir) => resolve(dir)) }
      : {}),
  };
}

function existing(files: readonly (string | undefined)[]): string[] {
  return files.flatMap((file) =>
    file === undefined || !existsSync(resolve(file)) ? [] : [resolve(file)],
  );
}

/**
 * The store's files (those not made yet are left out when the sandbox starts). Not its folder:
 * the bridge keeps there what OpenCode must read (its plugin that hides secrets from tools).
 */
function storePaths(place: { directory: string; store: string | undefined }): string[] {
  if (place.store === undefined || place.store.includes("://")) return [];
  const store = resolve(place.store);
  return [store, `${store}-wal`, `${store}-shm`];
}
