/**
 * The `ocb` command's entry (bin/ocb.js), copied into package layouts of its own: an installed
 * package (dist/ only) runs the compiled CLI; a checkout (src/ beside bin/) runs the sources
 * through tsx, even when an older dist/ is there; with neither tsx nor dist/ it says what is
 * missing and what to do, instead of a module-not-found stack trace.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CommandRun, runCommand } from "../support/run-command.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const PRINT_ARGS = "process.stdout.write(JSON.stringify(process.argv.slice(2)));";

describe("bin/ocb.js", () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "ocb-bin-"));
    mkdirSync(join(root, "bin"));
    copyFileSync(join(repoRoot, "bin", "ocb.js"), join(root, "bin", "ocb.js"));
    writeFileSync(join(root, "package.json"), '{ "type": "module" }\n');
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  const write = (path: string, text: string): void => {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const ocb = (...args: string[]): Promise<CommandRun> =>
    runCommand(process.execPath, [join(root, "bin", "ocb.js"), ...args], {
      cwd: root,
      boundMs: 60_000,
    });

  it("installed (dist/ only): runs the compiled CLI with its arguments", async () => {
    write("dist/cli/ocb.js", `process.stdout.write("dist "); ${PRINT_ARGS}\n`);
    const run = await ocb("run", "hi");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('dist ["run","hi"]');
  });

  it("in a checkout: runs the TypeScript sources through tsx, not an older dist/", async () => {
    symlinkSync(join(repoRoot, "node_modules"), join(root, "node_modules"));
    write("dist/cli/ocb.js", `process.stdout.write("dist "); ${PRINT_ARGS}\n`);
    write("src/cli/args.ts", "export const args: string[] = process.argv.slice(2);\n");
    write(
      "src/cli/ocb.ts",
      'import { args } from "./args.js";\nconst from: string = "source ";\nprocess.stdout.write(from + JSON.stringify(args));\n',
    );
    const run = await ocb("run", "hi");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('source ["run","hi"]');
  });

  it("a checkout without tsx still runs a built dist/", async () => {
    write("src/cli/ocb.ts", "throw new Error('not this one');\n");
    write("dist/cli/ocb.js", `process.stdout.write("dist "); ${PRINT_ARGS}\n`);
    const run = await ocb("run");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('dist ["run"]');
  });

  it("with neither tsx nor dist/, says what is missing and how to get it", async () => {
    write("src/cli/ocb.ts", "throw new Error('not this one');\n");
    const run = await ocb("run");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the compiled CLI (dist/cli/ocb.js) is missing");
    expect(run.stderr).toContain("`npm ci`");
    expect(run.stderr).toContain("`npm run build`");
    expect(run.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|\n\s+at /);
  });
});
