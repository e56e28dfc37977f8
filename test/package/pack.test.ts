/**
 * End to end: the package as a user gets it. `npm pack` of the package tier's build (a copy of
 * this checkout built by `npm run build`, what `prepack` runs: see test/setup/package-build.ts;
 * in place, a build pulled `dist/web` from under the browser tests running beside it, which
 * failed a clean clone's CI once), then `npm install` of the tarball into an empty project; there `npx ocb run --demo "hi"` completes a turn, and
 * `import { Bridge } from "opencode-bridge"` works from ESM (node) and from TypeScript (tsc,
 * against the installed package's own types).
 *
 * The install is real: dependencies come from the npm cache or the registry (`--prefer-offline`),
 * install scripts run. better-sqlite3 gets this checkout's build of the same version through its
 * own prebuilt path (see sqlite-prebuild.ts) instead of compiling again; where that cannot be
 * offered it compiles (minutes), hence the generous bounds, which are not speed checks.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envOutsideNpm, REPO_ROOT as repoRoot } from "../support/checkout-copy.js";
import { packageBuild } from "../support/package-build.js";
import { type CommandRun, runCommand } from "../support/run-command.js";
import { sqlitePrebuildEnv } from "../support/sqlite-prebuild.js";

const INSTALL_BOUND_MS = 8 * 60_000;

interface PackedFile {
  path: string;
}
interface PackResult {
  filename: string;
  files: PackedFile[];
}
interface Manifest {
  scripts?: Record<string, string>;
  bin?: Record<string, string>;
  exports?: Record<string, { types?: string; default?: string }>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** What a command said, for a failed expectation. */
const transcript = (run: CommandRun): string =>
  `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;

/** Identifies the built chat's page, to tell whether anything rebuilt it. */
function builtChat(): string | undefined {
  const index = join(repoRoot, "dist", "web", "index.html");
  if (!existsSync(index)) return undefined;
  const { ino, mtimeMs } = statSync(index);
  return `${ino}@${mtimeMs}`;
}

describe("the packed package, installed into an empty project", () => {
  let work: string;
  let project: string;
  let packed: PackResult;
  let manifest: Manifest;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "ocb-pack-"));
    project = join(work, "project");
    const prebuilds = join(work, "prebuilds");
    mkdirSync(project);
    mkdirSync(prebuilds);

    // The tier's build is what `prepack` would make (`npm run build`, checked below): packing
    // it without scripts builds nothing again, and never in this checkout, whose dist/web the
    // browser tests serve meanwhile.
    const chatBefore = builtChat();
    const pack = await runCommand(
      "npm",
      ["pack", "--json", "--ignore-scripts", "--pack-destination", work],
      { cwd: packageBuild().checkout, env: envOutsideNpm({}), boundMs: INSTALL_BOUND_MS },
    );
    expect(pack.code, transcript(pack)).toBe(0);
    expect(builtChat(), "the checkout's dist/web was rebuilt under the tests").toBe(chatBefore);
    const [result] = JSON.parse(pack.stdout) as PackResult[];
    if (result === undefined) throw new Error(`npm pack reported no package:\n${pack.stdout}`);
    packed = result;
    manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as Manifest;

    // The OpenCode binary package may be optional for users who only attach to a server; the
    // demo turn starts one, so install it as such a user would when it is not pulled in.
    const pulledIn =
      manifest.dependencies?.["opencode-ai"] ?? manifest.optionalDependencies?.["opencode-ai"];
    // The pinned dev version first: a peer range would fetch the newest release instead.
    const opencode =
      manifest.devDependencies?.["opencode-ai"] ?? manifest.peerDependencies?.["opencode-ai"];
    if (pulledIn === undefined && opencode === undefined) {
      throw new Error("package.json names no opencode-ai version for the demo turn");
    }
    const types = manifest.devDependencies?.["@types/node"];
    if (types === undefined) throw new Error("package.json names no @types/node version");

    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify({ name: "ocb-pack-user", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
    );
    const install = await runCommand(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        join(work, packed.filename),
        `@types/node@${types}`,
        ...(pulledIn === undefined ? [`opencode-ai@${opencode}`] : []),
      ],
      {
        cwd: project,
        env: envOutsideNpm(sqlitePrebuildEnv(repoRoot, prebuilds)),
        boundMs: INSTALL_BOUND_MS,
      },
    );
    expect(install.code, transcript(install)).toBe(0);
  }, INSTALL_BOUND_MS + 120_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it("holds what a user needs and nothing of the tests", () => {
    const paths = packed.files.map((file) => file.path);
    const allowed = /^(package\.json|README\.md|LICENSE(\.\w+)?|bin\/ocb\.js|dist\/.+)$/;
    expect(paths.filter((path) => !allowed.test(path))).toEqual([]);
    expect(paths).toContain("LICENSE");
    // What was packed is what prepack builds: the shared build ran the same script.
    expect(manifest.scripts?.prepack).toMatch(/^npm run build\b/);
    // The web chat ocb serve serves, built by npm run build: its page and a bundle.
    expect(paths).toContain("dist/web/index.html");
    expect(paths.some((path) => /^dist\/web\/assets\/.+\.js$/.test(path))).toBe(true);
    expect(paths.filter((path) => /\.test\.|(^|\/)test\/|\.map$|fixture/.test(path))).toEqual([]);
    // Every file package.json points a user at is in it.
    const targets = [
      ...Object.values(manifest.bin ?? {}),
      ...Object.values(manifest.exports ?? {}).flatMap((entry) => [entry.types, entry.default]),
    ].flatMap((target) => (target === undefined ? [] : [target.replace(/^\.\//, "")]));
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((target) => !paths.includes(target))).toEqual([]);
  });

  it('runs `npx ocb run --demo "hi"` to a completed turn', async () => {
    // --no: never fetch a package called `ocb` from the registry if the bin were missing.
    const run = await runCommand("npx", ["--no", "ocb", "run", "--demo", "hi"], {
      cwd: project,
      env: envOutsideNpm({}),
      boundMs: 120_000,
    });
    expect(run.code, transcript(run)).toBe(0);
    expect(run.stdout).toMatch(/— completed/);
  }, 180_000);

  it("imports Bridge, the testing helpers, the sidecar, its client and the cluster entry from ESM", async () => {
    writeFileSync(
      join(project, "check.mjs"),
      [
        'import { Bridge } from "opencode-bridge";',
        'import * as testing from "opencode-bridge/testing";',
        'import { BridgeClient } from "opencode-bridge/client";',
        'import { startSidecar } from "opencode-bridge/sidecar";',
        'import { FencedAppendError } from "opencode-bridge/cluster";',
        "process.stdout.write(typeof Bridge.start + ' ' + (Object.keys(testing).length > 0) + ' ' + typeof BridgeClient + ' ' + typeof startSidecar + ' ' + typeof FencedAppendError);",
        "",
      ].join("\n"),
    );
    const run = await runCommand(process.execPath, ["check.mjs"], {
      cwd: project,
      env: envOutsideNpm({}),
      boundMs: 60_000,
    });
    expect(run.code, transcript(run)).toBe(0);
    expect(run.stdout).toBe("function true function function function");
  });

  it("serves the web chat from the installed package's own dist/web", async () => {
    // The chat's routes never reach the bridge: a stand-in object is enough to serve them.
    writeFileSync(
      join(project, "chat.mjs"),
      [
        'import { startSidecar } from "opencode-bridge/sidecar";',
        'const sidecar = await startSidecar({ bridge: {}, token: "pack-test-token-0123456789" });',
        "try {",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a program the test writes
        "  const page = await fetch(`${sidecar.url}/`);",
        "  const html = await page.text();",
        '  const script = /src="\\.?(\\/assets\\/[^"]+\\.js)"/.exec(html)?.[1];',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a program the test writes
        "  const asset = script === undefined ? undefined : await fetch(`${sidecar.url}${script}`);",
        "  process.stdout.write(JSON.stringify({",
        "    page: page.status,",
        '    csp: page.headers.get("content-security-policy"),',
        "    asset: asset?.status,",
        "    assetBytes: (await asset?.arrayBuffer())?.byteLength,",
        "  }));",
        "} finally {",
        "  await sidecar.close();",
        "}",
        "",
      ].join("\n"),
    );
    const run = await runCommand(process.execPath, ["chat.mjs"], {
      cwd: project,
      env: envOutsideNpm({}),
      boundMs: 60_000,
    });
    expect(run.code, transcript(run)).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      page: 200,
      csp: expect.stringContaining("script-src 'self'"),
      asset: 200,
      assetBytes: expect.any(Number),
    });
  });

  it("type-checks an import of Bridge against the installed types", async () => {
    writeFileSync(
      join(project, "check.ts"),
      [
        'import { Bridge } from "opencode-bridge";',
        "",
        "export const start: typeof Bridge.start = Bridge.start;",
        "// The types are the package's, not `any`: a wrong call is an error.",
        "// @ts-expect-error Bridge.start takes options, not a number",
        "export const wrong = () => Bridge.start(42);",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false, // the package's .d.ts files themselves must check
          types: ["node"],
        },
        files: ["check.ts"],
      }),
    );
    // The checkout's TypeScript, run on the user's project: resolution starts from there.
    const run = await runCommand(
      join(repoRoot, "node_modules", ".bin", "tsc"),
      ["-p", join(project, "tsconfig.json")],
      { cwd: project, env: envOutsideNpm({}), boundMs: 120_000 },
    );
    expect(run.code, transcript(run)).toBe(0);
  }, 180_000);
});
