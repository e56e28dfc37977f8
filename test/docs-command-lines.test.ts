/**
 * The docs' command lines carry no database password: one on a command line is visible to every
 * user of the machine in `ps` (issue 28, finding 5: the cluster examples did). A password goes
 * in `PGPASSWORD`, `~/.pgpass` or `OCB_STORE` from an environment file instead.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name)),
];

/** Lines of the page's shell code blocks. */
function shellLines(text: string): string[] {
  const lines: string[] = [];
  let inShell = false;
  for (const line of text.split("\n")) {
    const fence = /^```(\w*)/.exec(line);
    if (fence !== null) {
      inShell = !inShell && ["sh", "bash", "shell", "console"].includes(fence[1] ?? "");
      continue;
    }
    if (inShell) lines.push(line);
  }
  return lines;
}

const PASSWORD_IN_URL = /postgres(ql)?:\/\/[^\s@/:]+:(?!…@)[^\s@/]+@/;

it("no command line in the docs puts a Postgres password in a URL", () => {
  const found = PAGES.flatMap((page) =>
    shellLines(readFileSync(join(ROOT, page), "utf8"))
      .filter((line) => !line.trim().startsWith("#") && PASSWORD_IN_URL.test(line))
      .map((line) => `${page}: ${line.trim()}`),
  );
  expect(found).toEqual([]);
});

it("finds one where there is one", () => {
  const page = "```sh\nocb serve --store 'postgres://ocb:secret@db/ocb' --cluster\n```\n";
  expect(shellLines(page).filter((line) => PASSWORD_IN_URL.test(line))).toHaveLength(1);
});
