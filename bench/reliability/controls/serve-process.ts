/**
 * `ocb serve` as a process of its own, so that it can be SIGKILLed as a crash kills it: on the
 * scenario's SQLite store and directory, OpenCode configured with the scripted model (which
 * runs in the scenario's process, so that it outlives every sidecar). Only the sidecar's own
 * process is killed: its managed OpenCode server is kept by its keeper and taken up by the next
 * `ocb serve` on the same store, as after a real crash. Each process starts a group of its own,
 * so that whatever is left of it at the end can be found and counted.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";

const OCB = join(import.meta.dirname, "../../../src/cli/ocb.ts");
/** Bound on a sidecar coming up (tsx, a server adopted or started, on a loaded machine). */
const START_BOUND_MS = 90_000;
/** Bound on a graceful stop (SIGTERM: the bridge stops its server). */
const STOP_BOUND_MS = 30_000;

export interface ServeSetup {
  directory: string;
  store: string;
  config: string;
  token: string;
  /** Each process's output is appended here. */
  logDir: string;
}

export interface ServeProcess {
  pid: number;
  url: string;
  exited: Promise<void>;
}

/** Process groups started (every `ocb serve`, with its OpenCode server). */
export class ServeProcesses {
  readonly groups: number[] = [];
  #started = 0;
  constructor(private readonly setup: ServeSetup) {}

  async start(): Promise<ServeProcess> {
    const { directory, store, config, token, logDir } = this.setup;
    const args = ["serve", "--dir", directory, "--store", store, "--config", config];
    const child = spawn(
      process.execPath,
      ["--import", "tsx", OCB, ...args, "--model", "demo/demo-1", "--no-web"],
      {
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, OCB_TOKEN: token },
      },
    );
    if (child.pid === undefined) throw new Error("could not start ocb serve");
    this.groups.push(child.pid);
    const log = createWriteStream(join(logDir, `serve-${++this.#started}.log`));
    child.stderr?.pipe(log);
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const url = await listening(child, exited);
    return { pid: child.pid, url, exited };
  }

  /** SIGKILL of the sidecar's own process, nothing else. */
  async kill(serve: ServeProcess): Promise<void> {
    process.kill(serve.pid, "SIGKILL");
    await serve.exited;
  }

  /** SIGTERM, as an operator stops it: the bridge stops its OpenCode server. */
  async stop(serve: ServeProcess): Promise<void> {
    process.kill(serve.pid, "SIGTERM");
    await Promise.race([serve.exited, delay(STOP_BOUND_MS)]);
  }

  /** Groups with a process still running; each is then killed (a leak is a finding, not left). */
  sweep(): number {
    let alive = 0;
    for (const group of this.groups) {
      try {
        process.kill(-group, 0);
        alive++;
        process.kill(-group, "SIGKILL");
      } catch {
        // the whole group is gone, as it should be
      }
    }
    return alive;
  }
}

/** The URL the sidecar prints once it listens. */
async function listening(child: ChildProcess, exited: Promise<void>): Promise<string> {
  let stdout = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  const deadline = Date.now() + START_BOUND_MS;
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
    if (url !== undefined) return url;
    if (gone) throw new Error(`ocb serve exited before it listened: ${stdout}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`ocb serve did not listen within ${START_BOUND_MS} ms`);
    }
    await delay(50);
  }
}
