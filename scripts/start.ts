/**
 * `npm start`: the sidecar with the web chat, on the built-in demo model (offline) unless a
 * real model is named (`npm start -- --model p/m` or `--config file`). Builds `dist/web`
 * first when it is missing or older than `web/`, then runs `ocb serve`, which prints the
 * chat's URL. Every other argument goes to `ocb serve` as it is.
 *
 * Signals: `ocb serve` runs in a process group of its own, and this script hands it each
 * Ctrl-C / SIGTERM once. A terminal's Ctrl-C reaches this script twice (from the terminal and
 * again from npm, which forwards it); were the server in this group it would see two and take
 * them for "stop now", skipping the clean stop. A second Ctrl-C pressed later is passed on (the
 * server then exits at once, killing what it started). Killed outright, this script leaves the
 * server on its own, which notices and stops cleanly (`OCB_STOP_WITH_PARENT`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";
import { STOP_WITH_PARENT_ENV } from "../src/cli/parent-watch.js";
import { serveArguments } from "./serve-arguments.js";
import { webBuildReason } from "./web-build-state.js";

const PACKAGE_ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Copies of one Ctrl-C (the terminal's and npm's) arrive within this; a new press comes later. */
const SAME_PRESS_MS = 500;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const reason = webBuildReason(PACKAGE_ROOT);
  if (reason !== undefined) {
    console.log(`building the web chat (${reason}): npm run build:web`);
    const built = await run(spawn("npm", ["run", "--silent", "build:web"], options()));
    if (built !== 0) {
      console.error(`ocb start: building the web chat failed (exit ${built}); see above`);
      return built ?? 1;
    }
  }
  const serve = serveArguments(args);
  console.log(
    serve.demo
      ? "starting the sidecar with the web chat on the demo model, offline (open the chat: URL below)"
      : "starting the sidecar with the web chat (open the chat: URL below)",
  );
  const server = spawn(process.execPath, ["--import", "tsx", "src/cli/ocb.ts", ...serve.args], {
    ...options(),
    detached: true,
    // Killed with no chance to pass anything on (kill -9), this script leaves the server
    // orphaned in its own group: it then stops itself (src/cli/parent-watch.ts).
    env: { ...process.env, [STOP_WITH_PARENT_ENV]: String(process.pid) },
  });
  return (await forwardSignals(server)) ?? 1;
}

function options() {
  return { cwd: PACKAGE_ROOT, stdio: "inherit" as const };
}

/** The child's exit code (128 + n when a signal ended it). */
function run(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      resolve(code ?? (signal === null ? null : 128 + constants.signals[signal])),
    );
  });
}

/** Passes each interrupt on to the server once, until it exits; its exit code. */
async function forwardSignals(server: ChildProcess): Promise<number | null> {
  let lastForwarded = 0;
  const forward = (signal: NodeJS.Signals): void => {
    if (Date.now() - lastForwarded < SAME_PRESS_MS) return;
    lastForwarded = Date.now();
    server.kill(signal);
  };
  const onHangup = (): void => forward("SIGTERM");
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  process.on("SIGHUP", onHangup);
  // Should this script die of something else, the server (in its own group) must not linger.
  const killServer = (): void => {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGTERM");
  };
  process.on("exit", killServer);
  try {
    return await run(server);
  } finally {
    process.off("exit", killServer);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`ocb start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
