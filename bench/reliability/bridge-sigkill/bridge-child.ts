/**
 * One bridge child (child.ts) as the scenario holds it: forked with an IPC channel, detached (a
 * process group of its own: its SIGKILL spares the managed server and the keeper, which run in
 * groups of theirs, as a real crash of the bridge would), its stderr in a file.
 */
import { type ChildProcess, fork } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ChangeNotifier } from "../../../src/util/change-notifier.js";
import { isProcessGroupRunning } from "../../../src/util/process-liveness.js";
import { ChildMessage, type ChildSetup, SETUP_ENV } from "./messages.js";

const CHILD = fileURLToPath(new URL("./child.ts", import.meta.url));
const REPO = fileURLToPath(new URL("../../../", import.meta.url));

type Of<K extends ChildMessage["kind"]> = Extract<ChildMessage, { kind: K }>;

export class BridgeChild {
  readonly pid: number;
  readonly #process: ChildProcess;
  readonly #messages: ChildMessage[] = [];
  readonly #changes = new ChangeNotifier();
  /** Messages handed out by `next`: each is handed out once. */
  #read = 0;
  #exit: string | undefined;
  readonly exited: Promise<void>;

  constructor(setup: ChildSetup, stderrPath: string) {
    const stderr = openSync(stderrPath, "a");
    try {
      this.#process = fork(CHILD, [], {
        cwd: REPO,
        execArgv: ["--import", "tsx"],
        detached: true,
        stdio: ["ignore", "ignore", stderr, "ipc"],
        env: { ...process.env, [SETUP_ENV]: JSON.stringify(setup) },
      });
    } finally {
      closeSync(stderr);
    }
    if (this.#process.pid === undefined) throw new Error("the bridge child did not start");
    this.pid = this.#process.pid;
    this.#process.on("message", (raw) => {
      const parsed = ChildMessage.safeParse(raw);
      this.#messages.push(
        parsed.success
          ? parsed.data
          : { kind: "failed", message: `unreadable message ${JSON.stringify(raw)}` },
      );
      this.#changes.notify();
    });
    this.exited = new Promise((resolve) => {
      this.#process.once("exit", (code, signal) => {
        this.#exit = `exited (${signal ?? code})`;
        this.#changes.notify();
        resolve();
      });
    });
  }

  /**
   * The next message not read yet, which must be of `kind`: a `failed` one, another kind, the
   * child's exit or `boundMs` without a message is an error that says which.
   */
  async next<K extends ChildMessage["kind"]>(kind: K, boundMs: number): Promise<Of<K>> {
    const arrived = await this.#changes.until(
      () => this.#messages.length > this.#read || this.#exit !== undefined,
      { what: `the bridge child's ${kind}`, timeoutMs: boundMs },
    );
    const message = this.#messages[this.#read];
    if (message === undefined) {
      throw new Error(
        `the bridge child ${this.#exit ?? `said nothing for ${boundMs} ms`} before "${kind}"${arrived ? "" : " (bound passed)"}`,
      );
    }
    this.#read++;
    if (message.kind === kind) return message as Of<K>;
    const detail = message.kind === "failed" ? `: ${message.message}` : "";
    throw new Error(`the bridge child said "${message.kind}" where "${kind}" was due${detail}`);
  }

  /** The last message of `kind` it sent, read or not. */
  last<K extends ChildMessage["kind"]>(kind: K): Of<K> | undefined {
    return this.#messages.findLast((message): message is Of<K> => message.kind === kind);
  }

  /** SIGKILL to its whole group (only it: the server and the keeper have groups of their own). */
  async kill(): Promise<void> {
    if (isProcessGroupRunning(this.pid)) {
      try {
        process.kill(-this.pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    await this.exited;
  }
}
