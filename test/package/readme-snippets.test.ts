/**
 * The ```ts examples of the README and of every page under docs/ compile against the real API:
 * each one is written to a temp directory as a module importing `opencode-bridge` (mapped by
 * `paths` to the declarations of the package tier's build, the types a user installs) and the
 * lot is type-checked with the repository's own compiler settings.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { packageBuild } from "../support/package-build.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The pages whose examples are checked, from the repository's root. */
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name)),
];

/**
 * Names the examples leave to the reader (their own values and functions, and the `bridge`
 * and `session` an earlier example made), declared once here rather than in every example.
 * The `ws` package ships no types: the examples take its WebSocket to be what the client and
 * remote access ask for (as test/support/ws.ts does with the real one).
 */
const READER_PROVIDES = `
declare const url: string;
declare const password: string;
declare const apiKey: string;
declare const projectDir: string;
declare const sidecarToken: string;
declare const token: string;
declare const directory: string;
declare const pairingLink: string;
declare const bridge: import("opencode-bridge").Bridge;
declare const session: import("opencode-bridge").Session;
declare function showStatus(status: string): void;
declare function showText(text: string): void;
declare function runMyFeature(
  client: import("opencode-bridge/protocol").OpencodeClient,
): Promise<void>;
declare module "ws" {
  // ws's class fits both: the client's text sockets and remote access's binary ones.
  const WebSocket: import("opencode-bridge/client").WebSocketConstructor &
    import("opencode-bridge").BinarySocketConstructor;
  export { WebSocket };
  export default WebSocket;
}
`;

/** The ```ts blocks of `markdown`, with the line each starts at. */
function tsBlocks(markdown: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== "```ts") continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trim() !== "```") end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

describe("the examples of the README and docs/", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocb-readme-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("type-check against the package's entry points", { timeout: 120_000 }, () => {
    const files = PAGES.flatMap((page) =>
      tsBlocks(readFileSync(join(ROOT, page), "utf8")).map(({ line, code }) => {
        const name = `${page.replace(/\W+/g, "-")}-line-${line}.mts`;
        // `export {}` keeps an example without imports a module (its own scope, top-level await).
        writeFileSync(join(dir, name), `${code}\nexport {};\n`);
        return name;
      }),
    );
    // The README's and the library guide's examples, at least: a page lost would show here.
    expect(files.filter((name) => name.startsWith("README-md-")).length).toBeGreaterThanOrEqual(2);
    expect(
      files.filter((name) => name.startsWith("docs-library-md-")).length,
    ).toBeGreaterThanOrEqual(4);
    writeFileSync(join(dir, "reader-provides.d.ts"), READER_PROVIDES);
    const { dist } = packageBuild();
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: join(ROOT, "tsconfig.json"),
        compilerOptions: {
          noEmit: true,
          rootDir: "/",
          typeRoots: [join(ROOT, "node_modules", "@types")],
          paths: {
            "opencode-bridge": [join(dist, "index.d.ts")],
            "opencode-bridge/protocol": [join(dist, "protocol-entry.d.ts")],
            "opencode-bridge/testing": [join(dist, "testing", "index.d.ts")],
            "opencode-bridge/client": [join(dist, "client", "index.d.ts")],
            "opencode-bridge/sidecar": [join(dist, "sidecar", "index.d.ts")],
          },
        },
        include: [],
        files: ["reader-provides.d.ts", ...files],
      }),
    );
    let output = "";
    try {
      execFileSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir], {
        stdio: ["ignore", "pipe", "pipe"],
        encoding: "utf8",
      });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      output = `${failed.stdout ?? ""}${failed.stderr ?? ""}`;
    }
    // Each file is named after the page and the line its example starts at.
    expect(output, "examples that do not compile (file name = page and line)").toBe("");
  });
});
