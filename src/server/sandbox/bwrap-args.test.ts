import { describe, expect, it } from "vitest";
import { bwrapArgs, type SandboxLayout } from "./bwrap-args.js";
import { OFFLINE_SHELL_DIR, REAL_SHELL } from "./offline-shell.js";

const layout: SandboxLayout = {
  readable: ["/tmp/repo/node_modules/opencode/bin"],
  writable: ["/home/me", "/tmp/ocb-opencode-1"],
  hidden: [
    { path: "/home/me/.ssh", directory: true },
    { path: "/home/me/.netrc", directory: false },
  ],
  privateTemp: ["/tmp"],
  offlineShell: undefined,
  uid: 1000,
  gid: 1000,
  chdir: "/home/me",
};

/** Where `flag value…` first appears in `args`. */
function at(args: string[], ...sequence: string[]): number {
  const index = args.findIndex((_, i) => sequence.every((part, j) => args[i + j] === part));
  expect(index, `${sequence.join(" ")} in ${args.join(" ")}`).toBeGreaterThanOrEqual(0);
  return index;
}

describe("bwrapArgs", () => {
  it("drops every capability in a user namespace of its own, over a read-only root", () => {
    const args = bwrapArgs(layout);
    at(args, "--unshare-all");
    at(args, "--unshare-user");
    at(args, "--cap-drop", "ALL");
    expect(at(args, "--ro-bind", "/", "/")).toBeLessThan(at(args, "--tmpfs", "/tmp"));
  });

  it("binds what is under the private /tmp after it, and hides secrets after what is writable", () => {
    const args = bwrapArgs(layout);
    const tmp = at(args, "--tmpfs", "/tmp");
    expect(
      at(args, "--ro-bind", layout.readable[0] ?? "", layout.readable[0] ?? ""),
    ).toBeGreaterThan(tmp);
    expect(at(args, "--bind", "/tmp/ocb-opencode-1", "/tmp/ocb-opencode-1")).toBeGreaterThan(tmp);
    // ~/.ssh inside a writable home: hidden after the home is bound, or the bind shows it again.
    expect(at(args, "--tmpfs", "/home/me/.ssh", "--remount-ro", "/home/me/.ssh")).toBeGreaterThan(
      at(args, "--bind", "/home/me", "/home/me"),
    );
    at(args, "--ro-bind", "/dev/null", "/home/me/.netrc");
    expect(args.slice(-2)).toEqual(["--chdir", "/home/me"]);
  });

  it("with the network off, replaces the shell by the script, the real one read-only beside it", () => {
    const args = bwrapArgs({ ...layout, offlineShell: { shell: "/usr/bin/dash", scriptFd: 3 } });
    expect(args).not.toContain("--unshare-net"); // OpenCode itself keeps the network
    const real = at(args, "--ro-bind", "/usr/bin/dash", REAL_SHELL);
    expect(at(args, "--remount-ro", OFFLINE_SHELL_DIR)).toBeGreaterThan(real);
    at(args, "--perms", "0555", "--ro-bind-data", "3", "/usr/bin/dash");
  });
});
