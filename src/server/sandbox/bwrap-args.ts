/**
 * The bubblewrap command line of a sandbox: a pure function of what is to be writable, hidden
 * and private, so that what a mode allows can be read (and tested) in one place.
 *
 * Order matters: bubblewrap applies its arguments in turn, a later mount over an earlier one.
 * The root read-only first; private temp dirs, and what they hid that must stay readable;
 * then what is writable (some of it lives in the
 * private `/tmp`); then the secrets hidden (some lie inside a writable directory, `~/.ssh` in a
 * home that is the workspace); the offline shell last.
 */
import { OFFLINE_SHELL_DIR, REAL_SHELL } from "./offline-shell.js";

export interface SandboxLayout {
  /**
   * Read-only again after the private temp dirs hid them (the OpenCode binary, the session
   * directory of a read-only sandbox, when they lie under `/tmp`).
   */
  readable: readonly string[];
  /** Writable directories (the session directory in `workspace-write`, OpenCode's state). */
  writable: readonly string[];
  /** Existing paths not to be readable at all, by their real paths. */
  hidden: readonly { path: string; directory: boolean }[];
  /** Private, empty, writable temp directories (`/tmp` and the like). */
  privateTemp: readonly string[];
  /** With the network cut for tool commands: the real path of `/bin/sh`. */
  offlineShell: { shell: string; scriptFd: number } | undefined;
  /** The user and group ids inside; files owned by the caller appear owned by them. */
  uid: number;
  gid: number;
  /** Where the command starts. */
  chdir: string;
}

export function bwrapArgs(layout: SandboxLayout): string[] {
  const args = [
    // Namespaces of its own: no other process is visible (nor can be signalled), no IPC, and
    // in a user namespace of its own with no capabilities, so that no mount can be undone (a
    // root without a user namespace could remount `/` writable).
    "--unshare-all",
    "--share-net",
    "--unshare-user",
    "--uid",
    String(layout.uid),
    "--gid",
    String(layout.gid),
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
  ];
  for (const dir of layout.privateTemp) args.push("--tmpfs", dir);
  for (const path of layout.readable) args.push("--ro-bind", path, path);
  for (const dir of layout.writable) args.push("--bind", dir, dir);
  for (const { path, directory } of layout.hidden) {
    if (directory) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  if (layout.offlineShell !== undefined) {
    const { shell, scriptFd } = layout.offlineShell;
    args.push("--tmpfs", OFFLINE_SHELL_DIR);
    args.push("--ro-bind", shell, REAL_SHELL, "--remount-ro", OFFLINE_SHELL_DIR);
    args.push("--perms", "0555", "--ro-bind-data", String(scriptFd), shell);
  }
  args.push("--chdir", layout.chdir);
  return args;
}
