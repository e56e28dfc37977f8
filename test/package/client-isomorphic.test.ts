/**
 * `opencode-bridge/client` runs in a browser: its import graph, followed transitively from
 * every module of src/client, reaches no `node:` module, no package but zod, and at run
 * time nothing outside src/client and src/wire (type-only imports are
 * erased: they may name the canonical events' and the protocol's types). Nor does any of those
 * modules touch a Node global (`process`, `Buffer`, `require`). It type-checks against the
 * DOM's `WebSocket` and `fetch` without Node's types, and vite bundles it for a browser
 * without stubbing out any Node module.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { describe, expect, it } from "vitest";
import { importsOf, importsOfSource, resolveImport } from "../support/import-graph.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLIENT = join(ROOT, "src", "client");
const WIRE = join(ROOT, "src", "wire");
const RUNTIME_ALLOWED = [CLIENT, WIRE];
/**
 * The conversation reducer the live state folds with (the library's own, so that a UI and the
 * library agree), and what it reaches: pure modules, held to the same rules as the client.
 */
const SHARED_FILES = [
  "src/wire/conversation.ts",
  "src/wire/message-updates.ts",
  "src/events/canonical.ts",
  // The canonical events' definitions: the wire's envelope schemas are built from them.
  "src/events/event-definitions.ts",
  "src/events/event-parts.ts",
  "src/events/streamed-so-far.ts",
  // What a session spent, tallied from its steps (the live conversation's and Session.context's).
  "src/events/usage-tally.ts",
  "src/util/assert-never.ts",
  "src/util/backoff.ts",
  "src/util/replay-seam.ts",
  "src/util/timeout-signal.ts",
  "src/util/abortable-delay.ts",
  "src/errors.ts",
].map((file) => join(ROOT, file));
const PACKAGES_ALLOWED = new Set(["zod"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => join(dir, name));
}

/** Every problem in the graph from `start`, as "chain: what" lines. */
function problemsFrom(start: string[]): { problems: string[]; visited: string[] } {
  const problems: string[] = [];
  const seen = new Set<string>();
  const queue = start.map((file) => ({ file, chain: [relative(ROOT, file)] }));
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
    if (seen.has(item.file)) continue;
    seen.add(item.file);
    const text = readFileSync(item.file, "utf8");
    const where = item.chain.join(" -> ");
    const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
    for (const global of code.match(/\b(process\.|Buffer\b|require\()/g) ?? []) {
      problems.push(`${where}: uses the Node global ${global}`);
    }
    for (const edge of importsOf(item.file)) {
      const { specifier, typeOnly } = edge;
      if (edge.computed) {
        problems.push(`${where}: imports a computed specifier ${specifier}`);
        continue;
      }
      if (!specifier.startsWith(".")) {
        if (specifier.startsWith("node:") || !PACKAGES_ALLOWED.has(specifier)) {
          problems.push(`${where}: imports ${specifier}`);
        }
        continue;
      }
      if (typeOnly) continue; // erased from the JavaScript
      const target = resolveImport(item.file, edge) as string;
      const allowed =
        SHARED_FILES.includes(target) ||
        RUNTIME_ALLOWED.some((dir) => target.startsWith(`${dir}/`));
      if (!allowed) {
        problems.push(`${where}: imports ${relative(ROOT, target)} at run time`);
        continue;
      }
      queue.push({ file: target, chain: [...item.chain, relative(ROOT, target)] });
    }
  }
  return { problems, visited: [...seen] };
}

describe("the client's import graph (opencode-bridge/client is isomorphic)", () => {
  it("reaches no Node module, no package but zod, nothing outside the client and the wire", () => {
    // Every module of the wire too, not only those the client imports: the web chat and the
    // sidecar share all of it.
    const start = [...sourceFiles(CLIENT), ...sourceFiles(WIRE)];
    expect(start.length).toBeGreaterThan(5);
    const { problems, visited } = problemsFrom(start);
    expect(problems).toEqual([]);
    // The wire's schemas are part of it (the client infers its types from them).
    expect(visited.some((file) => file.includes("src/wire/"))).toBe(true);
  });

  it("the check sees a Node import, a value import from elsewhere and a Node global", () => {
    const { problems } = problemsFrom([join(ROOT, "src", "events", "step-parts.ts")]);
    expect(problems).toEqual(
      expect.arrayContaining([expect.stringContaining("imports src/events/build.ts at run time")]),
    );
    const text =
      'import { x } from "node:fs";\nexport type { Y } from "./y.js";\nimport { type Z } from "./z.js";';
    expect(importsOfSource("a.ts", text)).toEqual([
      { specifier: "node:fs", typeOnly: false, line: 1, computed: false },
      { specifier: "./y.js", typeOnly: true, line: 2, computed: false },
      // Kept as `import {} from "./z.js"` under verbatimModuleSyntax: it loads the module.
      { specifier: "./z.js", typeOnly: false, line: 3, computed: false },
    ]);
    const userData = problemsFrom([join(ROOT, "src", "util", "user-data-dir.ts")]).problems;
    expect(userData).toContain("src/util/user-data-dir.ts: imports node:os");
  });
});

describe("the client in a browser's types", () => {
  it("takes the DOM's WebSocket and fetch as they are, without Node's types", {
    timeout: 120_000,
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), "ocb-client-dom-"));
    try {
      writeFileSync(
        join(dir, "browser.ts"),
        [
          'import { BridgeClient, type FetchLike, type WebSocketConstructor } from "opencode-bridge/client";',
          "const socket: WebSocketConstructor = WebSocket;",
          "const fetchLike: FetchLike = fetch;",
          'const client = new BridgeClient({ url: location.origin, token: "t", WebSocket, fetch });',
          "export { client, fetchLike, socket };",
        ].join("\n"),
      );
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "ESNext",
            moduleResolution: "Bundler",
            lib: ["ES2023", "DOM"],
            types: [],
            strict: true,
            exactOptionalPropertyTypes: true,
            noEmit: true,
            skipLibCheck: true,
            paths: { "opencode-bridge/client": [join(CLIENT, "index.ts")] },
          },
          files: ["browser.ts"],
        }),
      );
      let output = "";
      try {
        execFileSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8" });
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string };
        output = `${failed.stdout ?? ""}${failed.stderr ?? ""}`;
      }
      // Only this file's errors: the protocol's schemas name some library types (capabilities,
      // the conversation view) whose modules also use Node types; erased from the JavaScript,
      // and a consumer's skipLibCheck passes over them in the declarations.
      const here = output.split("\n").filter((line) => line.includes("browser.ts("));
      expect(here).toEqual([]);
      expect(output).not.toContain("client/");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the client bundled for a browser", () => {
  it("bundles (vite, browser build) with no Node module stubbed out", {
    timeout: 120_000,
  }, async () => {
    const result = await build({
      configFile: false,
      logLevel: "silent",
      root: ROOT,
      build: {
        write: false,
        minify: false,
        lib: { entry: join(CLIENT, "index.ts"), formats: ["es"], fileName: "client" },
      },
    });
    const outputs = (Array.isArray(result) ? result : [result]).flatMap((one) =>
      "output" in one ? one.output : [],
    );
    const code = outputs.map((chunk) => ("code" in chunk ? chunk.code : "")).join("\n");
    expect(code).toMatch(/var BridgeClient = class/);
    // Vite replaces a Node built-in it meets in a browser build by an empty stub.
    expect(code).not.toContain("__vite-browser-external");
    expect(code).not.toMatch(/["']node:/);
  });
});
