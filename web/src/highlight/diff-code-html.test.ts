import { describe, expect, it } from "vitest";
import { diffCodeHtml } from "./diff-code-html.js";
import { HIGHLIGHT_MAX_LINE_CHARS } from "./highlighted-lines.js";

/** The token classes in a line's HTML, in order. */
function classes(html: string | undefined): string[] {
  return [...(html ?? "").matchAll(/class="([^"]+)"/g)].map((match) => match[1] as string);
}

describe("diffCodeHtml", () => {
  it("highlights each file's code in its own language, headers and signs left out", () => {
    const lines = [
      "--- a/src/a.ts\t2026-01-01 00:00:00",
      "+++ b/src/a.ts\t2026-01-01 00:00:00",
      "@@ -1,2 +1,2 @@",
      " const keep = 1;",
      '-let name = "old";',
      '+let name = "new";',
      "--- a/tool.py",
      "+++ b/tool.py",
      "@@ -1 +1 @@",
      "+def run(): pass",
      "--- a/notes.txt",
      "+++ b/notes.txt",
      "@@ -1 +1 @@",
      "+const not_code = 1",
    ];
    const html = diffCodeHtml(lines);
    for (const header of [0, 1, 2, 6, 7, 8, 10, 11, 12]) expect(html[header]).toBeUndefined();
    expect(classes(html[3])).toEqual(["hljs-keyword", "hljs-number"]);
    expect(html[4]).toBe(
      '<span class="hljs-keyword">let</span> name = <span class="hljs-string">&quot;old&quot;</span>;',
    );
    expect(html[5]).toBe(
      '<span class="hljs-keyword">let</span> name = <span class="hljs-string">&quot;new&quot;</span>;',
    );
    expect(classes(html[9])).toContain("hljs-keyword");
    // A .txt file has no language: its lines stay text.
    expect(html[13]).toBeUndefined();
  });

  it("takes the path given for a diff cut to its hunks, and a new file's from +++", () => {
    const hunk = ["@@ -0,0 +1 @@", "+export const a = 1;"];
    expect(classes(diffCodeHtml(hunk, "web/x.ts")[1])).toContain("hljs-keyword");
    expect(diffCodeHtml(hunk, "x.txt")[1]).toBeUndefined();
    expect(diffCodeHtml(hunk)[1]).toBeUndefined();
    const created = ["--- /dev/null", "+++ b/x.go", "@@ -0,0 +1 @@", "+func main() {}"];
    expect(classes(diffCodeHtml(created)[3])).toContain("hljs-keyword");
    const deleted = ["--- a/x.go", "+++ /dev/null", "@@ -1 +0,0 @@", "-func main() {}"];
    expect(classes(diffCodeHtml(deleted)[3])).toContain("hljs-keyword");
    const applyPatch = ["*** Begin Patch", "*** Add File: y.py", "+import os", "*** End Patch"];
    expect(diffCodeHtml(applyPatch).map(classes)).toEqual([[], [], ["hljs-keyword"], []]);
  });

  it("reads each side as the file reads: a comment opened before a removal stays one", () => {
    const lines = ["@@ -1,3 +1,3 @@", " /* a", "-old", "+new", " */", " let x;"];
    const html = diffCodeHtml(lines, "a.ts");
    expect(classes(html[2])).toEqual(["hljs-comment"]);
    expect(classes(html[3])).toEqual(["hljs-comment"]);
    expect(classes(html[4])).toEqual(["hljs-comment"]);
    expect(classes(html[5])).toEqual(["hljs-keyword"]);
  });

  it("keeps planted HTML escaped", () => {
    const lines = ["@@ -0,0 +1 @@", '+<img src=x onerror="alert(1)"><script>alert(2)</script>'];
    const html = diffCodeHtml(lines, "page.html")[1] ?? "";
    expect(html).toContain("&lt;");
    expect(html).not.toMatch(/<(?!\/?span)/);
  });

  it("leaves a diff past the bounds as text", () => {
    const long = `+const s = "${"x".repeat(HIGHLIGHT_MAX_LINE_CHARS)}";`;
    expect(diffCodeHtml(["@@ -0,0 +1,2 @@", "+let a;", long], "a.ts")).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});
