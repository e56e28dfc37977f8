/**
 * `ocb run "prompt"`: one turn on the chosen backend (a managed server by default), streamed to the terminal (or as
 * canonical NDJSON with --json). Exit code 0 completed, 1 failed, 130 interrupted. The first
 * Ctrl-C interrupts the turn; a second one exits at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { BACKEND_KINDS } from "../../backends/backend.js";
import { UsageError } from "../../errors.js";
import { Bridge, chooseBackend, parseModel } from "../../runtime/bridge.js";
import { readConfigFile } from "../config-file.js";
import { TurnPrinter } from "../turn-printer.js";

interface RunOptions {
  backend?: string;
  model?: string;
  dir?: string;
  config?: string;
  json?: boolean;
  demo?: boolean;
}

const EXIT = { completed: 0, failed: 1, interrupted: 130 } as const;

/** The demo turn: reasoning, a real bash tool call run by OpenCode, and a reply built on it. */
export const DEMO_PROMPT =
  "[[reasoning I will look at the project directory with the bash tool first.]] " +
  '[[tool bash {"command":"pwd && ls -la"}]] ' +
  "[[then That was a scripted demo turn (not an LLM) run through a real opencode server: " +
  "the bash tool call above was executed by OpenCode.]]";

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description("run one turn and stream it (text as it arrives, tool calls, usage)")
    .argument("[prompt]", "what to ask (with --demo, a scripted tool turn by default)")
    .option("--model <provider/model>", "model to use (default: the config's, or demo/demo-1)")
    .option(
      "--dir <directory>",
      "project directory (default: the current one; a temp dir with --demo)",
    )
    .option("--config <file>", "OpenCode config file (JSON) merged into the managed server's")
    .option("--json", "print canonical events as NDJSON, one per line")
    .option("--demo", "use the built-in scripted model (offline, no credentials)")
    .option(
      "--backend <backend>",
      `how the turn runs: ${BACKEND_KINDS.join(", ")} (default: $OCB_BACKEND, else serve)`,
    )
    .action(async (prompt: string | undefined, options: RunOptions) => {
      process.exitCode = await run(prompt ?? (options.demo ? DEMO_PROMPT : ""), options);
    });
}

async function run(prompt: string, options: RunOptions): Promise<number> {
  if (prompt.trim() === "")
    throw new UsageError("the prompt is empty; say what the turn should do");
  const backend = chooseBackend(options.backend);
  const model = options.model === undefined ? undefined : parseModel(options.model);
  const config = options.config === undefined ? undefined : readConfigFile(options.config);
  const scratch = options.demo && options.dir === undefined;
  const directory = scratch
    ? mkdtempSync(join(tmpdir(), "ocb-demo-"))
    : resolve(options.dir ?? ".");

  let bridge: Bridge | undefined;
  let interrupts = 0;
  let onSignal: () => void = () => {};
  const interruptRequested = new Promise<void>((resolve) => {
    onSignal = () => {
      interrupts++;
      if (interrupts > 1) process.exit(EXIT.interrupted);
      resolve();
    };
  });
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    bridge = await Bridge.start({
      directory,
      backend,
      ...(options.demo ? { demo: true } : {}),
      ...(model === undefined ? {} : { model }),
      ...(config === undefined ? {} : { config }),
    });
    const session = await bridge.createSession({ title: prompt.slice(0, 60) });
    const turn = await session.send(prompt, { delivery: "queue" });
    void interruptRequested.then(() => session.interrupt().catch(() => {}));
    const printer = new TurnPrinter(process.stdout);
    for await (const event of turn.events()) {
      if (options.json) process.stdout.write(`${JSON.stringify(event)}\n`);
      else printer.print(event);
    }
    const result = await turn.done();
    return EXIT[result.outcome];
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await bridge?.close();
    if (scratch) rmSync(directory, { recursive: true, force: true });
  }
}
