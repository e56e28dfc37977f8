import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AllowedDirectories } from "./allowed-directories.js";

const root = mkdtempSync(join(tmpdir(), "ocb-allowed-"));
const project = join(root, "project");
const other = join(root, "other");
mkdirSync(join(project, "sub"), { recursive: true });
mkdirSync(other);
mkdirSync(join(root, "project-two"));
symlinkSync(other, join(project, "link-out"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("AllowedDirectories", () => {
  const allowed = new AllowedDirectories([project], true);

  it("allows the directory and what lies under it", async () => {
    expect(await allowed.allows(project)).toBe(true);
    expect(await allowed.allows(join(project, "sub"))).toBe(true);
  });

  it("refuses a sibling, a parent, a name that only starts alike, and a way out through `..`", async () => {
    expect(await allowed.allows(other)).toBe(false);
    expect(await allowed.allows(root)).toBe(false);
    expect(await allowed.allows(join(root, "project-two"))).toBe(false);
    expect(await allowed.allows(join(project, "sub", "..", "..", "other"))).toBe(false);
  });

  it("refuses a symbolic link inside that leads out", async () => {
    expect(await allowed.allows(join(project, "link-out"))).toBe(false);
  });

  it("allows any of several directories", async () => {
    const two = new AllowedDirectories([project, other], true);
    expect(await two.allows(other)).toBe(true);
    expect(await two.allows(join(root, "project-two"))).toBe(false);
  });

  it("compares paths as written when the directories are on another machine", async () => {
    const remote = new AllowedDirectories(["/srv/repo"], false);
    expect(await remote.allows("/srv/repo/app")).toBe(true);
    expect(await remote.allows("/srv/repos")).toBe(false);
  });

  it("says which directories are allowed and how to allow another", () => {
    expect(allowed.refusal(other)).toContain(JSON.stringify(project));
    expect(allowed.refusal(other)).toContain("--allow-dir");
  });
});
