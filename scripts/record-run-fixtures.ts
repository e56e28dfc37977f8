/**
 * `npm run fixtures:record-run [-- name …]`: records what `opencode run --format json` prints
 * (the subprocess backend's input) against the scripted model, one file per scenario:
 * `fixtures/opencode-1.18.33/run-<name>.stdout.ndjson`, each stdout line as it came (sanitised:
 * the working directory becomes `<work>`, the scripted model's port `<port>`), then a last line
 * `{"exit":{"code":…,"signal":…}}`. The replays are in src/events/normalize-run.test.ts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { RunEnvironment } from "../src/backends/subprocess/run-environment.js";
import { terminateProcessGroup } from "../src/server/process-group.js";
import { demoModelRef, demoProviderConfig } from "../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../src/testing/scripted-model/index.js";
import { sanitize } from "../src/transport/transcript/sanitize.js";
import { fixturePath } from "../test/support/fixture-files.js";

const VERSION = "1.18.33";
/** Bound on one run; a scripted turn takes seconds (a cold start included). */
const RUN_TIMEOUT_MS = 120_000;

interface RunScenario {
  name: string;
  /** The prompt; `work` is the run's working directory. */
  prompt(work: string): string;
  /** OpenCode config merged over the demo provider (the scenario gets its own environment). */
  config?: Record<string, unknown>;
  /** Checks on the recorded lines: the recording is refused if one fails. */
  check(lines: unknown[], exit: RunExit): void;
}

interface RunExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const scenarios: RunScenario[] = [
  {
    name: "text",
    prompt: () => "[[reasoning thinking first]] [[reply run pong]]",
    check: (lines) => {
      expectLine(lines, (line) => line.type === "reasoning", "a reasoning line");
      expectLine(
        lines,
        (line) => line.type === "text" && partOf(line).text === "run pong",
        'a text line "run pong"',
      );
    },
  },
  {
    name: "tool",
    prompt: () => '[[tool bash {"command":"echo hi","description":"say hi"}]] [[then tool done]]',
    check: (lines) => {
      expectLine(
        lines,
        (line) => line.type === "tool_use" && stateOf(line).status === "completed",
        "a completed tool_use line",
      );
      expectLine(
        lines,
        (line) => line.type === "text" && partOf(line).text === "tool done",
        'a text line "tool done"',
      );
    },
  },
  {
    // Non-retryable: a 5xx would be retried for about a minute.
    name: "provider-error",
    prompt: () =>
      '[[error 400 {"error":{"message":"bad request","type":"invalid_request_error"}}]]',
    check: (lines) => {
      expectLine(lines, (line) => line.type === "error", "an error line");
    },
  },
  {
    // Without `--auto`, `opencode run` rejects every permission ask.
    name: "permission-rejected",
    config: { permission: { edit: "ask" } },
    prompt: (work) =>
      `[[tool write ${JSON.stringify({ filePath: join(work, "x.txt"), content: "hi" })}]] [[then wrote]]`,
    check: (lines) => {
      expectLine(
        lines,
        (line) =>
          line.type === "tool_use" &&
          stateOf(line).status === "error" &&
          /rejected permission/i.test(String(stateOf(line).error)),
        'a tool_use line that failed with "rejected permission"',
      );
    },
  },
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !scenarios.some((scenario) => scenario.name === name));
if (unknown.length > 0) {
  console.error(`unknown scenario(s): ${unknown.join(", ")}`);
  console.error(`known: ${scenarios.map((scenario) => scenario.name).join(", ")}`);
  process.exit(2);
}

/** Process groups still running: killed if the script fails or is interrupted. */
const live = new Map<number, Promise<unknown>>();
const stopAll = async (): Promise<void> => {
  await Promise.all(
    [...live].map(([pid, exited]) => terminateProcessGroup(pid, exited, { graceMs: 2_000 })),
  );
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void stopAll().finally(() => process.exit(130));
  });
}

let failed = 0;
const model = await startScriptedModel();
try {
  for (const scenario of scenarios) {
    if (wanted.length > 0 && !wanted.includes(scenario.name)) continue;
    process.stdout.write(`run-${scenario.name}: recording… `);
    try {
      const { lines, exit } = await record(model, scenario);
      scenario.check(lines, exit);
      const file = fixturePath(`opencode-${VERSION}/run-${scenario.name}.stdout.ndjson`);
      const text = [...lines, { exit }].map((line) => JSON.stringify(line)).join("\n");
      writeFileSync(file, `${text}\n`);
      console.log(`${lines.length} lines, exit ${JSON.stringify(exit)}`);
    } catch (error) {
      failed++;
      console.log("FAILED");
      console.error(error);
    }
  }
} finally {
  await stopAll();
  await model.close();
}
process.exitCode = failed > 0 ? 1 : 0;

/** Runs one scenario in a fresh environment and working directory; returns its sanitised lines. */
async function record(
  model: ScriptedModel,
  scenario: RunScenario,
): Promise<{ lines: unknown[]; exit: RunExit }> {
  const environment = await RunEnvironment.create({
    config: { ...demoProviderConfig(model.url), ...scenario.config },
  });
  // The real path: OpenCode reports the directory with symlinks resolved.
  const work = realpathSync(mkdtempSync(join(tmpdir(), "ocb-run-record-")));
  try {
    const args = ["run", "--format", "json", "--thinking", "--model", demoModelRef];
    args.push("--", scenario.prompt(work));
    const { stdout, exit, stderr } = await runOnce(environment, args, work);
    if (exit.code === null && exit.signal === null) {
      throw new Error(`opencode run did not finish:\n${stderr}`);
    }
    const port = `127.0.0.1:${model.port}`;
    const lines = stdout
      .filter((line) => line.trim() !== "")
      .map((line) => {
        let raw: unknown;
        try {
          raw = JSON.parse(line);
        } catch {
          throw new Error(`a stdout line is not JSON: ${line.slice(0, 200)}\nstderr:\n${stderr}`);
        }
        return JSON.parse(
          JSON.stringify(sanitize(raw, { directory: work })).replaceAll(port, "127.0.0.1:<port>"),
        ) as unknown;
      });
    return { lines, exit };
  } finally {
    rmSync(work, { recursive: true, force: true });
    await environment.close();
  }
}

/** One `opencode run` in its own process group; killed (the group) if it overruns. */
async function runOnce(
  environment: RunEnvironment,
  args: string[],
  cwd: string,
): Promise<{ stdout: string[]; stderr: string; exit: RunExit }> {
  const child = spawn(environment.binary, args, {
    cwd,
    env: environment.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<RunExit>((resolve, reject) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", reject);
  });
  const pid = child.pid;
  if (pid !== undefined) live.set(pid, exited);
  const stdout: string[] = [];
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const stdoutDone = new Promise<void>((resolve) => {
    const reader = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    reader.on("line", (line) => stdout.push(line));
    reader.once("close", () => resolve());
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), RUN_TIMEOUT_MS);
  });
  try {
    const first = await Promise.race([exited, timedOut]);
    if (first === "timeout") {
      if (pid !== undefined) await terminateProcessGroup(pid, exited, { graceMs: 2_000 });
      throw new Error(`opencode run overran ${RUN_TIMEOUT_MS} ms; stderr:\n${stderr}`);
    }
    // A tool's shell that inherited stdout could keep it open: read on only briefly.
    await Promise.race([stdoutDone, new Promise((done) => setTimeout(done, 2_000).unref())]);
    // Anything the run left behind (a tool's shell) goes with its group.
    if (pid !== undefined) await terminateProcessGroup(pid, exited, { graceMs: 2_000 });
    return { stdout, stderr, exit: first };
  } finally {
    clearTimeout(timer);
    if (pid !== undefined) live.delete(pid);
  }
}

type Line = Record<string, unknown>;

function expectLine(lines: unknown[], test: (line: Line) => boolean, what: string): void {
  if (!lines.some((line) => typeof line === "object" && line !== null && test(line as Line))) {
    throw new Error(`expected ${what}; got:\n${lines.map((l) => JSON.stringify(l)).join("\n")}`);
  }
}

function partOf(line: Line): Line {
  return (line.part ?? {}) as Line;
}

function stateOf(line: Line): Line {
  return (partOf(line).state ?? {}) as Line;
}
