/**
 * Every relative link of the docs reaches a file of the repository (tracked or not, but not one
 * git ignores, such as a build output), and its `#anchor` a heading of that page; no link leaves
 * the repository by a relative path (a checkout has nothing beside it). Links with a scheme
 * (`https:`, `mailto:`) are the web's, not checked here.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { anchorsOf, linksOf, slugOf } from "../support/markdown-links.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The pages checked, from the repository's root. */
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  "fixtures/README.md",
  ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name)),
];

/** The paths (from the root) of `paths` that git ignores. */
function ignoredByGit(paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync("git", ["check-ignore", "--", ...paths], {
      cwd: ROOT,
      encoding: "utf8",
    });
    return new Set(out.split("\n").filter((line) => line !== ""));
  } catch (error) {
    // Exit status 1: none of them is ignored. Anything else is a real failure.
    if ((error as { status?: number }).status === 1) return new Set();
    throw error;
  }
}

/**
 * What is wrong with the relative links of `markdown`, the page at `page` (a path from `root`),
 * one line each; `isIgnored` says which existing paths do not count as the repository's.
 */
function brokenLinks(
  root: string,
  page: string,
  markdown: string,
  isIgnored: (path: string) => boolean = () => false,
): string[] {
  const problems: string[] = [];
  for (const { target, line } of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not a file of ours
    const where = `${page}:${line}: ${target}`;
    const hash = target.indexOf("#");
    const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    if (pathPart === "") {
      // `#anchor`: a heading of this page.
      if (anchor !== undefined && !anchorsOf(markdown).has(anchor)) {
        problems.push(`${where}: ${page} has no heading for #${anchor}`);
      }
      continue;
    }
    if (isAbsolute(pathPart)) {
      problems.push(`${where}: an absolute path (write it relative to the page)`);
      continue;
    }
    const file = resolve(root, dirname(page), pathPart);
    const fromRoot = relative(root, file);
    if (fromRoot.startsWith("..") || isAbsolute(fromRoot)) {
      problems.push(`${where}: leaves the repository`);
      continue;
    }
    if (!existsSync(file) || isIgnored(fromRoot)) {
      problems.push(`${where}: no such file in the repository`);
      continue;
    }
    if (anchor === undefined || anchor === "" || statSync(file).isDirectory()) continue;
    if (!file.endsWith(".md")) continue; // an anchor into code: GitHub's line anchors, not ours
    if (!anchorsOf(readFileSync(file, "utf8")).has(anchor)) {
      problems.push(`${where}: ${fromRoot} has no heading for #${anchor}`);
    }
  }
  return problems;
}

describe("links in the docs", () => {
  it("every relative link reaches a file of the repository, and its anchor a heading", () => {
    expect(PAGES.length).toBeGreaterThan(10);
    const targets = PAGES.flatMap((page) =>
      linksOf(readFileSync(join(ROOT, page), "utf8"))
        .map(({ target }) => target.split("#")[0] ?? "")
        .filter((path) => path !== "" && !/^[a-z][a-z0-9+.-]*:/i.test(path))
        .map((path) => relative(ROOT, resolve(ROOT, dirname(page), decodeURI(path))))
        .filter((path) => !path.startsWith("..") && existsSync(join(ROOT, path))),
    );
    const ignored = ignoredByGit([...new Set(targets)]);
    const problems = PAGES.flatMap((page) =>
      brokenLinks(ROOT, page, readFileSync(join(ROOT, page), "utf8"), (path) => ignored.has(path)),
    );
    expect(problems).toEqual([]);
  });

  it("finds a missing file, a way out of the repository, a wrong anchor and an absolute path", () => {
    const page = [
      "# A page",
      "## Its `second` part: here",
      "[ok](#its-second-part-here) [ok](README.md) [ok](docs/events.md#envelope)",
      "[missing](docs/nothing.md) [out](../shared/docs/style.md) [anchor](#nowhere)",
      "[absolute](/etc/passwd) [web](https://example.com/x#y) `[code](not/a/link.md)`",
      '<img src="docs/screenshots/none.png">',
      "```",
      "[fenced](not/a/link.md)",
      "```",
    ].join("\n");
    const problems = brokenLinks(ROOT, "PAGE.md", page);
    expect(problems.map((problem) => problem.replace(/^PAGE\.md:\d+: /, ""))).toEqual([
      "docs/nothing.md: no such file in the repository",
      "../shared/docs/style.md: leaves the repository",
      "#nowhere: PAGE.md has no heading for #nowhere",
      "/etc/passwd: an absolute path (write it relative to the page)",
      "docs/screenshots/none.png: no such file in the repository",
    ]);
  });

  it("makes GitHub's anchors: code, punctuation and case dropped, repeats numbered", () => {
    expect(slugOf("The managed server: `startOpencode(options)`")).toBe(
      "the-managed-server-startopencodeoptions",
    );
    expect(slugOf("OpenCode's client: `opencode-bridge/protocol`")).toBe(
      "opencodes-client-opencode-bridgeprotocol",
    );
    expect([...anchorsOf("## Tests\n\n## Tests\n```\n## not a heading\n```")]).toEqual([
      "tests",
      "tests-1",
    ]);
  });
});
