import { describe, expect, it } from "vitest";
import { highlighted } from "../markdown/highlight.js";
import { languageOfPath } from "./language-of-path.js";

describe("languageOfPath", () => {
  it("maps each known extension to its highlight.js language, whatever the case", () => {
    const cases: [string, string][] = [
      ["src/app.ts", "typescript"],
      ["web/src/chat.tsx", "typescript"],
      ["vite.config.mts", "typescript"],
      ["x.cts", "typescript"],
      ["a/b.js", "javascript"],
      ["b.JSX", "javascript"],
      ["c.mjs", "javascript"],
      ["d.cjs", "javascript"],
      ["tool.py", "python"],
      ["lib.rs", "rust"],
      ["main.go", "go"],
      ["package.json", "json"],
      ["base.css", "css"],
      ["index.html", "xml"],
      ["feed.xml", "xml"],
      ["icon.svg", "xml"],
      ["README.md", "markdown"],
      ["ci.yml", "yaml"],
      ["compose.yaml", "yaml"],
      ["run.sh", "bash"],
      ["setup.bash", "bash"],
      ["schema.sql", "sql"],
      ["fix.diff", "diff"],
      ["fix.patch", "diff"],
      ["C:\\repo\\src\\win.ts", "typescript"],
    ];
    expect(cases.map(([path]) => [path, languageOfPath(path)])).toEqual(cases);
  });

  it("gives no language for an unknown extension, a bare name or a dot file", () => {
    for (const path of ["notes.txt", "Makefile", "src/.bashrc", "archive.tar.gz", "a.ts/", ""]) {
      expect(languageOfPath(path), path).toBeUndefined();
    }
    expect(languageOfPath(undefined)).toBeUndefined();
    // An own property only: `constructor` is not an extension.
    expect(languageOfPath("x.constructor")).toBeUndefined();
  });

  it("names only languages highlight.ts registers", () => {
    const paths = ["a.ts", "a.js", "a.py", "a.rs", "a.go", "a.json", "a.css", "a.html"];
    paths.push("a.md", "a.yml", "a.sh", "a.sql", "a.diff");
    for (const path of paths) {
      expect(highlighted("x", languageOfPath(path)), path).toBeDefined();
    }
  });
});
