/**
 * `ocb run "prompt"`: one turn on the chosen backend (a managed server by default), streamed to the terminal (or as
 * canonical NDJSON with --json). Exit code 0 completed, 1 failed, 130 interrupted. Ctrl-C
 * (or SIGTERM) works in every phase: the first aborts whatever is under way (server start,
 * model catalog wait, admission, an ask at the prompt) or interrupts the streaming turn, then
 * stops everything the run started and exits 130; a second one kills the server's process
 * group and exits at once. A server left behind by an `ocb run` killed outright (SIGKILL) is
 * stopped by its keeper at once. Permission asks and questions are put to the terminal,
 * answered by `--approve`, or (stdin not a terminal) rejected.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { Command } from "commander";
import { BACKEND_KINDS, type BackendKind } from "../../backends/backend.js";
import { UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { Bridge } from "../../runtime/bridge/bridge.js";
import { chooseBackend, parseModel } from "../../runtime/bridge/bridge-options.js";
import {
  PERMISSION_PRESETS,
  type PermissionPreset,
} from "../../runtime/bridge/permission-presets.js";
import type { Session } from "../../runtime/session/session.js";
import type { Turn } from "../../runtime/session/turn.js";
import { wantsColor } from "../ansi.js";
import { APPROVE_MODES, type ApproveMode, AskAnswerer } from "../ask-answerer.js";
import { choiceOption } from "../choice-option.js";
import { readConfigFile } from "../config-file.js";
import { demoModelServer } from "../demo-model.js";
import { followConnection } from "../follow-connection.js";
import { handleInterrupts, INTERRUPTED_EXIT_CODE } from "../interrupts.js";
import { addPassEnvOption } from "../pass-env.js";
import { PhaseMarks } from "../phase-marks.js";
import { addSandboxOptions, type SandboxFlags, sandboxOf } from "../sandbox-option.js";
import {
  STORE_KEY_FILE_HELP,
  STORE_OPTION_HELP,
  storeKeyring,
  storeSpec,
} from "../store-access.js";
import { TurnPrinter } from "../turn-printer.js";

/** As commander hands them over: the choice options are already checked. */
interface RunOptions extends SandboxFlags {
  backend?: BackendKind;
  model?: string;
  dir?: string;
  config?: string;
  json?: boolean;
  demo?: boolean;
  approve?: ApproveMode;
  permissions?: PermissionPreset;
  store?: string;
  storeKeyFile?: string;
  file: string[];
  passEnv: string[];
}

const EXIT = { completed: 0, failed: 1, interrupted: INTERRUPTED_EXIT_CODE } as const;

/** After Ctrl-C, how long an interrupted turn gets to end by itself (and be printed so). */
const INTERRUPT_GRACE_MS = 1_000;

/** The demo turn: reasoning, a real bash tool call run by OpenCode, and a reply built on it. */
export const DEMO_PROMPT =
  "[[reasoning I will look at the project directory with the bash tool first.]] " +
  '[[tool bash {"command":"pwd && ls -la"}]] ' +
  "[[then That was a scripted demo turn (not an LLM) run through a real opencode server: " +
  "the bash tool call above was executed by OpenCode.]]";

export function registerRunCommand(program: Command): void {
  const command = program
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
    .addOption(
      choiceOption(
        "--backend <backend>",
        "how the turn runs (default: $OCB_BACKEND, else serve)",
        BACKEND_KINDS,
      ),
    )
    .addOption(
      choiceOption(
        "--approve <mode>",
        "answer asks without asking: all allows every permission ask once, none rejects it " +
          "(questions are declined either way); default: ask at the terminal, else reject",
        APPROVE_MODES,
      ),
    )
    .addOption(
      choiceOption(
        "--permissions <preset>",
        "which tool calls ask first (default: the config's)",
        Object.keys(PERMISSION_PRESETS),
      ),
    )
    .option("--store <path-or-url>", STORE_OPTION_HELP)
    .option("--store-key-file <path>", STORE_KEY_FILE_HELP)
    .option(
      "--file <path>",
      "attach a file (repeatable): a path (relative to the current directory) inside the " +
        "project directory, or an http(s) or data: URL",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    );
  addSandboxOptions(addPassEnvOption(command)).action(
    async (prompt: string | undefined, options: RunOptions) => {
      process.exitCode = await run(prompt ?? (options.demo ? DEMO_PROMPT : ""), options);
    },
  );
}

async function run(prompt: string, options: RunOptions): Promise<number> {
  const phases = new PhaseMarks();
  phases.mark("loaded");
  if (prompt.trim() === "")
    throw new UsageError("the prompt is empty; say what the turn should do");
  const backend = chooseBackend(options.backend);
  const model = options.model === undefined ? undefined : parseModel(options.model);
  const config = options.config === undefined ? undefined : readConfigFile(options.config);
  const { approve, permissions } = options;
  const scratch = options.demo && options.dir === undefined;
  const files = options.file.map(fromWorkingDirectory);
  if (scratch && files.some((file) => !/^(https?|data):/i.test(file))) {
    throw new UsageError(
      "--demo without --dir runs in a fresh temp directory, so no local file can be attached; " +
        "pass --dir with the directory that holds the file",
    );
  }
  if (backend === "subprocess" && permissions === "ask" && approve !== "all") {
    console.error(
      "ocb: the subprocess backend cannot ask anyone: `opencode run` rejects every permission " +
        "ask itself (pass --approve all to allow them)",
    );
  }
  const scratchDir = scratch ? scratchDirectory() : undefined;
  const directory = scratchDir?.path ?? resolve(options.dir ?? ".");

  const sandbox = sandboxOf(options, {
    directory,
    store: storeSpec(options.store),
    secretFiles: [options.storeKeyFile],
  });
  let bridge: Bridge | undefined;
  let asks: AskAnswerer | undefined;
  // Every phase takes this signal: the first Ctrl-C aborts the one under way.
  const stop = handleInterrupts();
  try {
    bridge = await Bridge.start({
      directory,
      backend,
      signal: stop.signal,
      logger: phases.logger(),
      // Nothing takes up the server of an `ocb run` killed outright: it stops at once.
      server: {
        orphanTimeoutMs: 0,
        passEnv: options.passEnv,
        ...(sandbox === undefined ? {} : { sandbox }),
      },
      ...(options.demo ? { modelServer: await demoModelServer() } : {}),
      ...(model === undefined ? {} : { model }),
      ...(config === undefined ? {} : { config }),
      ...(permissions === undefined ? {} : { permissions }),
      store: storeSpec(options.store),
      storeKey: storeKeyring(options.storeKeyFile),
      ...(backend === "subprocess" && approve === "all" ? { autoApprove: true } : {}),
    });
    phases.mark("bridge started");
    const session = await bridge.createSession({ title: prompt.slice(0, 60), signal: stop.signal });
    phases.mark("session created");
    const turn = await session.send(prompt, {
      delivery: "queue",
      signal: stop.signal,
      ...(files.length === 0 ? {} : { files }),
    });
    phases.mark("prompt admitted");
    // With --json, stdout carries the events alone: prompts and notices go to stderr.
    const promptOutput = options.json ? process.stderr : process.stdout;
    asks = new AskAnswerer({
      approve,
      terminal: process.stdin.isTTY
        ? {
            input: process.stdin,
            output: promptOutput,
            color: wantsColor(promptOutput),
            onInterrupt: () => stop.interrupt(),
          }
        : undefined,
      notice: (line) => console.error(line),
    });
    const outcome = await stream(session, turn, asks, stop.signal, options.json === true, phases);
    phases.mark("turn done");
    return stop.signal.aborted ? EXIT.interrupted : EXIT[outcome];
  } catch (error) {
    if (stop.signal.aborted) return EXIT.interrupted; // whatever the aborted phase threw
    throw error;
  } finally {
    asks?.close();
    await bridge?.close();
    stop.dispose();
    scratchDir?.remove();
    phases.mark("closed");
    phases.write();
  }
}

/**
 * The fresh temp dir a `--demo` run without `--dir` works in, removed when the run ends, and
 * by an exit hook when it does not end on its own (a second Ctrl-C exits at once).
 */
function scratchDirectory(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "ocb-demo-"));
  const remove = () => {
    process.off("exit", remove);
    rmSync(path, { recursive: true, force: true });
  };
  process.on("exit", remove);
  return { path, remove };
}

/**
 * Prints the turn's events and answers its asks until it ends. On `stop` the turn is
 * interrupted and gets a short grace to end by itself; after that the stream is let go.
 */
async function stream(
  session: Session,
  turn: Turn,
  asks: AskAnswerer,
  stop: AbortSignal,
  json: boolean,
  phases: PhaseMarks,
): Promise<"completed" | "failed" | "interrupted"> {
  const letGo = new AbortController();
  const onStop = () => {
    void session.interrupt({ signal: AbortSignal.timeout(INTERRUPT_GRACE_MS) }).catch(() => {});
    setTimeout(() => letGo.abort(), INTERRUPT_GRACE_MS).unref();
  };
  if (stop.aborted) onStop();
  else stop.addEventListener("abort", onStop, { once: true });
  // An ask still open when the turn ends (interrupted, stalled) or on Ctrl-C is not waited on.
  const turnEnded = new AbortController();
  void turn.done().then(
    () => turnEnded.abort(),
    () => turnEnded.abort(),
  );
  const askSignal = AbortSignal.any([turnEnded.signal, stop]);
  const printer = new TurnPrinter(process.stdout, { color: wantsColor(process.stdout) });
  const show = (event: CanonicalEvent): void => {
    if (json) process.stdout.write(`${JSON.stringify(event)}\n`);
    else printer.print(event);
  };
  const streamed = new AbortController();
  const following = followConnection(
    session,
    show,
    AbortSignal.any([streamed.signal, letGo.signal]),
  );
  try {
    for await (const event of turn.events({ signal: letGo.signal })) {
      phases.mark("first event");
      const ask = event.type === "permission.asked" || event.type === "question.asked";
      if (ask && asks.interactive && !json)
        printer.endLine(); // the prompt shows the ask in full
      else show(event);
      if (ask) await asks.answer(session, event, askSignal);
    }
  } catch (error) {
    if (!letGo.signal.aborted) throw error;
    return "interrupted";
  } finally {
    stop.removeEventListener("abort", onStop);
    streamed.abort();
    await following;
  }
  return (await turn.done()).outcome;
}

/** A URL as it is; a path as the shell means it, relative to the working directory. */
function fromWorkingDirectory(file: string): string {
  const url = /^[a-z][a-z0-9+.-]+:/i.test(file);
  return url || file.trim() === "" || isAbsolute(file) ? file : resolve(file);
}
