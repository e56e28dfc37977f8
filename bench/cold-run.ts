/**
 * (j) `ocb run` cold, against `opencode run` of the same one-shot tool turn: each a whole
 * process, started by this bench and timed from spawn to exit. `ocb run` is the installed CLI
 * (the package's `bin` beside the compiled `dist/`, no sources: what `npm i` gives), run with
 * `node`. Both sides run the same prompt on the same scripted model (one, in this process), in
 * a fresh project dir and fresh isolated OpenCode XDG roots (the config written the same way);
 * `ocb run` also gets a fresh store. So each run is cold on both sides. The runs alternate, after
 * one unmeasured warm-up each (the OS file cache). `ocb run` writes its phase marks
 * (`OCB_PHASE_LOG`), the median of each is printed with the figure.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PHASE_LOG_ENV } from "../src/cli/phase-marks.js";
import { prepareOpencodeEnv } from "../src/server/prepared-env.js";
import { resolveOpencodeBinary } from "../src/server/resolve-binary.js";
import { demoModelRef, demoProviderConfig } from "../src/testing/demo-provider.js";
import { startScriptedModel } from "../src/testing/scripted-model/index.js";
import { anySignalWithTimeout } from "../src/util/timeout-signal.js";
import { BACKEND_TURN } from "./backends.js";
import { recordGoal } from "./goals.js";
import { formatMs, formatRatio, median, note } from "./stats.js";

export interface ColdRunOptions {
  /** Measured runs on each side. */
  runs: number;
  /** One process's bound (it is killed after it). */
  timeoutMs: number;
  signal: AbortSignal;
}

export interface ColdRunResult {
  ocbMs: number[];
  opencodeMs: number[];
  /** Each phase mark of `ocb run` (ms since its process started), one per measured run. */
  phases: Map<string, number[]>;
}

const REPO = resolve(import.meta.dirname, "..");

export async function benchColdRun(options: ColdRunOptions): Promise<ColdRunResult> {
  const work = mkdtempSync(join(tmpdir(), "ocb-bench-cold-"));
  const model = await startScriptedModel();
  try {
    const ocb = installCompiledCli(join(work, "package"));
    const config: Record<string, unknown> = { ...demoProviderConfig(model.url) };
    const configFile = join(work, "opencode-config.json");
    writeFileSync(configFile, JSON.stringify(config));
    const binary = resolveOpencodeBinary();
    const result: ColdRunResult = { ocbMs: [], opencodeMs: [], phases: new Map() };
    for (let run = 0; run <= options.runs; run++) {
      const measured = run > 0; // run 0 warms each side up
      const dir = (name: string): string => {
        const path = join(work, `${name}-${run}`);
        mkdirSync(path);
        return path;
      };
      // Alternate which side goes first, so neither always follows the other's teardown.
      const sides = [
        async () => {
          const project = dir("ocb-project");
          const phaseLog = join(work, `phases-${run}.json`);
          const store = join(dir("ocb-store"), "store.db");
          const args = [ocb, "run", "--model", demoModelRef, "--config", configFile];
          args.push("--dir", project, "--store", store, BACKEND_TURN);
          const env = { ...process.env, [PHASE_LOG_ENV]: phaseLog };
          const ms = await timed(process.execPath, args, { cwd: project, env }, options);
          if (!measured) return;
          result.ocbMs.push(ms);
          for (const [phase, at] of Object.entries(readPhases(phaseLog))) {
            result.phases.set(phase, [...(result.phases.get(phase) ?? []), at]);
          }
        },
        async () => {
          const project = dir("opencode-project");
          // As `ocb run` sets up its server: fresh isolated XDG roots holding the config.
          const { env, dirs } = await prepareOpencodeEnv({ password: undefined, config });
          try {
            const ms = await timed(
              binary,
              ["run", "--model", demoModelRef, BACKEND_TURN],
              { cwd: project, env },
              options,
            );
            if (measured) result.opencodeMs.push(ms);
          } finally {
            await dirs?.remove();
          }
        },
      ];
      if (run % 2 === 1) sides.reverse();
      for (const side of sides) await side();
      note(`(j) cold run ${run === 0 ? "warm-up" : `${run}/${options.runs}`} done`);
    }
    return result;
  } finally {
    await model.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Lays out the package as `npm i` installs it: `bin/`, the compiled `dist/` (tsc, as `npm run
 * build` does; the web chat is not needed for a run) and package.json, with this checkout's
 * node_modules for its dependencies. Returns the path of the `ocb` bin.
 */
function installCompiledCli(root: string): string {
  note("(j) compiling the CLI (tsc -p tsconfig.build.json)");
  mkdirSync(root);
  const tsc = join(REPO, "node_modules", "typescript", "bin", "tsc");
  const build = spawnSync(
    process.execPath,
    [tsc, "-p", join(REPO, "tsconfig.build.json"), "--outDir", join(root, "dist")],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  if (build.status !== 0) throw new Error("(j) compiling the CLI failed");
  cpSync(join(REPO, "bin"), join(root, "bin"), { recursive: true });
  cpSync(join(REPO, "package.json"), join(root, "package.json"));
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"), "dir");
  return join(root, "bin", "ocb.js");
}

/** Spawn → exit of one process, ms; a non-zero exit or a timeout fails the bench. */
function timed(
  command: string,
  args: string[],
  spawnOptions: { cwd: string; env: NodeJS.ProcessEnv },
  options: ColdRunOptions,
): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      ...spawnOptions,
      stdio: ["ignore", "ignore", "pipe"],
      signal: anySignalWithTimeout([options.signal], options.timeoutMs),
      killSignal: "SIGKILL",
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-2_000);
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      const ms = performance.now() - started;
      if (code === 0) resolvePromise(ms);
      else reject(new Error(`(j) ${command} ${args[1]} exited ${code ?? signal}: ${stderr}`));
    });
  });
}

function readPhases(file: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

export function coldRunLines(result: ColdRunResult): string[] {
  const ocb = median(result.ocbMs);
  const opencode = median(result.opencodeMs);
  const ratio = ocb / opencode;
  const met = recordGoal({
    figure: "(j)",
    what: "`ocb run` one-shot tool turn, cold, against `opencode run` (whole process, wall)",
    measured: formatRatio(ratio),
    goal: "≤ 1.1x",
    met: ratio <= 1.1,
  });
  const phases = [...result.phases].map(([phase, at]) => `${phase} ${formatMs(median(at))}`);
  return [
    `(j) cold run        ocb run ${formatMs(ocb)} / opencode run ${formatMs(opencode)} = ` +
      `${formatRatio(ratio)}  (median of ${result.ocbMs.length} each, spawn → exit; goal ≤ 1.1x: ${met})`,
    `                    ocb run phases (median ms since its start): ${phases.join(", ")}`,
  ];
}
