/**
 * The client half runs in browsers: every module `openTunnelClient` reaches, through relative
 * imports, imports no `node:` module and no Node-only package, and names no `Buffer`.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/g;

function reachable(entry: string): Map<string, string> {
  const sources = new Map<string, string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (sources.has(file)) continue;
    const source = readFileSync(file, "utf8");
    sources.set(file, source);
    for (const match of source.matchAll(IMPORT)) {
      const specifier = match[1] ?? "";
      if (specifier.startsWith("."))
        queue.push(join(dirname(file), specifier.replace(/\.js$/, ".ts")));
    }
  }
  return sources;
}

it("keeps the client half free of Node", () => {
  const sources = reachable(join(HERE, "tunnel-client.ts"));
  expect(sources.size).toBeGreaterThan(5);
  const offending: string[] = [];
  for (const [file, source] of sources) {
    const name = relative(HERE, file);
    for (const match of source.matchAll(IMPORT)) {
      const specifier = match[1] ?? "";
      if (specifier.startsWith("node:") || specifier === "ws")
        offending.push(`${name}: ${specifier}`);
    }
    const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    if (/\bBuffer\b/.test(code)) offending.push(`${name}: Buffer`);
  }
  expect(offending).toEqual([]);
  expect([...sources.keys()].map((file) => relative(HERE, file))).not.toContain("tunnel-server.ts");
});
