/**
 * No wait combines `AbortSignal.any` with `AbortSignal.timeout`: on Node 20 the combined signal
 * holds its sources weakly, so a garbage collection before the time is up takes the timeout
 * away and the wait is unbounded. `anySignalWithTimeout` (src/util/timeout-signal.ts) is the
 * one way (CONTRIBUTING.md, Conventions).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SCANNED = ["src", "bench", "scripts", "web/src"];
const THE_HELPER = "src/util/timeout-signal.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The argument text of each `AbortSignal.any(…)` call in `text`, its parentheses balanced. */
function anyCallArguments(text: string): string[] {
  const calls: string[] = [];
  for (
    let at = text.indexOf("AbortSignal.any(");
    at >= 0;
    at = text.indexOf("AbortSignal.any(", at + 1)
  ) {
    const open = at + "AbortSignal.any".length;
    let depth = 0;
    for (let index = open; index < text.length; index++) {
      if (text[index] === "(") depth++;
      else if (text[index] === ")" && --depth === 0) {
        calls.push(text.slice(open + 1, index));
        break;
      }
    }
  }
  return calls;
}

/**
 * The files where a timeout signal is among the sources of `AbortSignal.any`: written in the
 * call, or a name given an `AbortSignal.timeout(…)` and then passed to it.
 */
function filesMixingAnyAndTimeout(files: readonly { path: string; text: string }[]) {
  return files
    .filter(({ text }) => {
      const names = [...text.matchAll(/(?:const|let)\s+(\w+)\s*=\s*AbortSignal\.timeout\(/g)].map(
        (match) => match[1] ?? "",
      );
      return anyCallArguments(text).some(
        (args) =>
          args.includes("AbortSignal.timeout(") ||
          names.some((name) => new RegExp(`\\b${name}\\b`).test(args)),
      );
    })
    .map(({ path }) => path);
}

describe("bounded waits", () => {
  it("never combine AbortSignal.any with AbortSignal.timeout outside the helper", () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir)))
      .map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, "utf8") }))
      .filter(({ path }) => path !== THE_HELPER);
    expect(filesMixingAnyAndTimeout(files)).toEqual([]);
  });

  it("finds the pattern where it is, written in the call or through a name", () => {
    const files = [
      { path: "inline.ts", text: "const s = AbortSignal.any([stop, AbortSignal.timeout(1000)]);" },
      {
        path: "named.ts",
        text: "const bound = AbortSignal.timeout(5);\nconst s = AbortSignal.any([a.signal, bound]);",
      },
      {
        path: "apart.ts",
        text: "f({ signal: AbortSignal.timeout(5) });\nconst s = AbortSignal.any([a, b]);",
      },
    ];
    expect(filesMixingAnyAndTimeout(files)).toEqual(["inline.ts", "named.ts"]);
  });
});
