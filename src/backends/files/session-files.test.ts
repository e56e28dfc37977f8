import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { fuzzyScore } from "./find-files.js";
import { SessionFiles } from "./session-files.js";

let root: string;
let files: SessionFiles;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ocb-session-files-"));
  const dir = join(root, "work");
  mkdirSync(join(dir, "src", "deep"), { recursive: true });
  mkdirSync(join(dir, "node_modules", "hello-pkg"), { recursive: true });
  writeFileSync(join(dir, "src", "hello-world.ts"), "export const x = 1;\n");
  writeFileSync(join(dir, "src", "deep", "other.ts"), "");
  writeFileSync(join(dir, "README.md"), "# héllo\n");
  writeFileSync(join(dir, "image.bin"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
  writeFileSync(join(root, "secret.txt"), "secret");
  symlinkSync(join(root, "secret.txt"), join(dir, "leak.txt"));
  symlinkSync("/proc", join(dir, "proc"));
  symlinkSync(join(dir, "src"), join(dir, "src-link"));
  files = new SessionFiles(dir);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(() => undefined).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(UsageError);
  return error as Error;
}

describe("list", () => {
  it("lists directories first, symlinks as symlinks, with paths relative to the directory", async () => {
    const listing = await files.list();
    expect(listing.path).toBe("");
    expect(listing.entries.slice(0, 2).map((entry) => entry.name)).toEqual(["node_modules", "src"]);
    expect(listing.entries).toContainEqual({ name: "leak.txt", path: "leak.txt", type: "symlink" });
    expect(listing.truncated).toBe(false);
    expect((await files.list("src")).entries).toEqual([
      { name: "deep", path: "src/deep", type: "directory" },
      { name: "hello-world.ts", path: "src/hello-world.ts", type: "file" },
    ]);
  });

  it("follows a symlink that stays inside, and bounds the entries", async () => {
    const viaLink = await files.list("src-link");
    expect(viaLink.path).toBe("src");
    const bounded = await files.list("", { maxEntries: 2 });
    expect(bounded.entries).toHaveLength(2);
    expect(bounded.truncated).toBe(true);
  });

  it("refuses .., an absolute path outside and symlinks leading out (to /proc too)", async () => {
    for (const path of ["..", "../..", "/etc", "proc", "proc/self"]) {
      expect((await refusal(files.list(path))).message).toMatch(/outside the session directory/);
    }
    expect((await refusal(files.list("README.md"))).message).toMatch(/is a file, not a directory/);
    expect((await refusal(files.list("nope"))).message).toMatch(/does not exist/);
  });
});

describe("read", () => {
  it("reads text, reports binary without content, and truncates at the bound on a character", async () => {
    expect(await files.read("README.md")).toEqual({
      path: "README.md",
      size: 9,
      binary: false,
      content: "# héllo\n",
      truncated: false,
    });
    expect(await files.read("image.bin")).toEqual({
      path: "image.bin",
      size: 4,
      binary: true,
      truncated: false,
    });
    // "# h" then the first byte of "é": the cut character is dropped, the text stays text.
    expect(await files.read("README.md", { maxBytes: 4 })).toMatchObject({
      content: "# h",
      binary: false,
      truncated: true,
      size: 9,
    });
  });

  it("refuses a symlink leading out, .., absolute paths outside and directories", async () => {
    for (const path of [
      "leak.txt",
      "../secret.txt",
      join(root, "secret.txt"),
      "proc/self/environ",
    ]) {
      const error = await refusal(files.read(path));
      expect(error.message).toMatch(/outside the session directory/);
      expect(error.message).not.toContain("secret\n");
    }
    expect((await refusal(files.read("src"))).message).toMatch(/is a directory/);
  });
});

describe("find", () => {
  it("finds by a few letters, the name's match first, skipping node_modules and not following links", async () => {
    const found = await files.find("hel");
    expect(found.files[0]).toEqual({ path: "src/hello-world.ts", type: "file" });
    const paths = found.files.map((file) => file.path);
    expect(paths).not.toContain("node_modules/hello-pkg");
    expect(paths).not.toContain("src-link/hello-world.ts");
    expect(found.truncated).toBe(false);
  });

  it("stops at the bound and says so; an empty query is refused", async () => {
    expect((await files.find("o", { maxScanned: 3 })).truncated).toBe(true);
    expect((await refusal(files.find("  "))).message).toMatch(/query is empty/);
  });

  it("scores letters in order only, a whole-name match above scattered letters", () => {
    expect(fuzzyScore("src/readme.md", "rdm")).toBeDefined();
    expect(fuzzyScore("src/readme.md", "mdr")).toBeUndefined();
    expect(fuzzyScore("a/hello.ts", "hel")).toBeGreaterThan(fuzzyScore("h/e/l/x.ts", "hel") ?? 0);
  });
});
