/**
 * How the commands of the `bash` tool lose the network while OpenCode keeps it (it must reach
 * its model provider, and the bridge must reach it). OpenCode 1.18.33 runs every such command
 * as `/bin/sh -c <command>` (whatever `SHELL` says; verified), so inside the sandbox the file
 * `/bin/sh` resolves to is replaced by this script: it starts the real shell in a network
 * namespace of its own, holding only a loopback. Everything the command starts inherits it.
 *
 * The real shell is bound read-only at `REAL_SHELL` (in a read-only mount of its own, so that
 * no command can rename or replace it), and this script is read by it, never by a path a
 * command could change: a command that could swap the interpreter would give the next one the
 * network. A shell started inside the namespace (a script's `sh`) runs the real one at once:
 * `OFFLINE_MARK` says it is already offline. Only what runs inside can set it, so a command
 * that sets it gains nothing.
 */

/** A directory of its own in the private `/tmp`, mounted read-only. */
export const OFFLINE_SHELL_DIR = "/tmp/.ocb-sandbox";
export const REAL_SHELL = `${OFFLINE_SHELL_DIR}/sh`;
const OFFLINE_MARK = "OCB_SANDBOX_OFFLINE";

/**
 * The script, for bubblewrap at `bwrap`. `--dev-bind / /` keeps the sandbox's own view (its
 * read-only root, private `/tmp`, hidden secrets); the new user namespace is what lets
 * bubblewrap make the network namespace without privileges.
 */
export function offlineShellScript(bwrap: string): string {
  const quoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  return [
    `#!${REAL_SHELL}`,
    "# opencode-bridge sandbox, network off: this shell's commands have no network.",
    `if [ "\${${OFFLINE_MARK}-}" = 1 ]; then exec ${REAL_SHELL} "$@"; fi`,
    `exec ${quoted(bwrap)} --unshare-user --unshare-net --die-with-parent --dev-bind / / \\`,
    `  --setenv ${OFFLINE_MARK} 1 -- ${REAL_SHELL} "$@"`,
    "",
  ].join("\n");
}
