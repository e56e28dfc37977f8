/**
 * End to end: Ctrl-C at `ocb run` in every phase (and once and twice at `ocb serve`), as a person presses it (SIGINT to the CLI's
 * process group, as a terminal sends it; at an ask, the key itself in a pseudo-terminal), and
 * `ocb run` killed outright. Each time the run ends (130 for Ctrl-C) and no process it
 * started (server, tools, keeper) is left. Phases that pass too fast to hit by timing are
 * held by a preload that holds the phase's request (`OCB_TEST_HOLD`, see
 * test/support/phase-hold.ts) or by a fake `opencode` that never becomes ready. Time bounds
 * here are safety nets, not what is tested; the measured exit times are printed.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { DescendantWatch } from "../support/descendants.js";
import {
  killLeftOcb,
  PHASE_HOLD,
  type RunningOcb,
  startOcb,
  untilOcb,
} from "../support/ocb-cli.js";
import { isRunning } from "../support/process-tracker.js";

const FAKES = join(import.meta.dirname, "../fixtures/fake-binaries");
/** Safety net for one exit: far above the 2 s a person waits for, far below a hang. */
const EXIT_BOUND_MS = 15_000;
/** Safety net for a phase to be reached (a cold real server on a loaded machine). */
const PHASE_BOUND_MS = 90_000;

const dirs: string[] = [];
const watches: DescendantWatch[] = [];
const clis: RunningOcb[] = [];
afterEach(() => {
  for (const cli of clis.splice(0)) {
    killLeftOcb(cli);
  }
  for (const watch of watches.splice(0)) {
    watch.stop();
    watch.killLeft(); // only does anything when the test failed
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocb-ctrlc-"));
  dirs.push(dir);
  return dir;
}

/**
 * Starts `ocb run` (its store in a temp dir) and watches every process it starts. `tmp`: its
 * own TMPDIR, to see what it leaves there (given only where that is checked: tsx's cache
 * starts cold in it).
 */
function runOcb(
  args: string[],
  options: { env?: Record<string, string>; tty?: boolean; preload?: string[]; tmp?: string } = {},
): { cli: RunningOcb; watch: DescendantWatch } {
  const store = join(tempDir(), "store.db");
  const env = { ...options.env, ...(options.tmp === undefined ? {} : { TMPDIR: options.tmp }) };
  const cli = startOcb(["run", "--store", store, ...args], { ...options, env });
  const watch = new DescendantWatch(cli.pid);
  clis.push(cli);
  watches.push(watch);
  return { cli, watch };
}

/** An empty directory for a run's own TMPDIR. */
function ownTmp(): string {
  const tmp = join(tempDir(), "tmp");
  mkdirSync(tmp);
  return tmp;
}

/**
 * What a run left in its TMPDIR (tsx's compile cache aside), after a settling bound: the
 * keeper removes the server's temp root once the server's group is gone.
 */
async function tempLeftOver(tmp: string): Promise<string[]> {
  const left = () => readdirSync(tmp).filter((name) => !name.startsWith("tsx-"));
  const deadline = Date.now() + 10_000;
  while (left().length > 0 && Date.now() < deadline) await delay(100);
  return left();
}

function until(what: string, cli: RunningOcb, ready: () => boolean): Promise<void> {
  return untilOcb(what, cli, ready, PHASE_BOUND_MS);
}

/** Presses Ctrl-C `times` times (SIGINT to the foreground group) and waits for the exit. */
async function ctrlC(
  phase: string,
  cli: RunningOcb,
  times = 1,
): Promise<number | null | "still running"> {
  const pressed = performance.now();
  for (let press = 0; press < times; press++) {
    if (press > 0) await delay(200);
    process.kill(-cli.pid, "SIGINT");
  }
  return exitOf(phase, cli, pressed);
}

async function exitOf(
  phase: string,
  cli: RunningOcb,
  since: number,
): Promise<number | null | "still running"> {
  const code = await Promise.race([cli.exited, delay(EXIT_BOUND_MS, "still running" as const)]);
  const ms = Math.round(performance.now() - since);
  measured(`ocb, Ctrl-C ${phase}: exit ${code} ${ms} ms after the signal`);
  return code;
}

/** The measured times go to the test's output (they are reported, not asserted). */
function measured(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Starts `ocb run --backend subprocess` and waits until its turn runs in `opencode run`. */
async function runSubprocessTurn(
  prompt: string,
): Promise<{ cli: RunningOcb; watch: DescendantWatch }> {
  const started = runOcb(["--demo", "--json", "--backend", "subprocess", prompt]);
  const { cli, watch } = started;
  await until(
    "the turn under way in an opencode run process",
    cli,
    () =>
      cli.stdout.includes('"input.admitted"') &&
      watch.seen.some((process) => /opencode.* run/.test(process.command)),
  );
  return started;
}

/**
 * SIGKILLs the run's whole group, as `kill -9` of a terminal job does, and waits (bounded) for
 * the opencode processes it started to go; the ones still running.
 */
async function killOutright(
  what: string,
  cli: RunningOcb,
  watch: DescendantWatch,
): Promise<string[]> {
  const killed = performance.now();
  process.kill(-cli.pid, "SIGKILL");
  await cli.exited;
  const deadline = Date.now() + EXIT_BOUND_MS;
  const opencodeLeft = () => watch.running().filter((process) => /opencode/.test(process.command));
  while (opencodeLeft().length > 0 && Date.now() < deadline) await delay(100);
  measured(`ocb run SIGKILLed: ${what} gone ${Math.round(performance.now() - killed)} ms later`);
  return opencodeLeft().map(({ pid, command }) => `${pid} ${command}`);
}

/** What is still running of what the run started, after a short settling bound. */
async function leftOver(watch: DescendantWatch): Promise<string[]> {
  watch.poll();
  const deadline = Date.now() + 10_000;
  while (watch.running().length > 0 && Date.now() < deadline) await delay(100);
  return watch.running().map(({ pid, command }) => `${pid} ${command}`);
}

describe("Ctrl-C at ocb run", () => {
  it("while the server starts: exits 130, the half-started server stopped", async () => {
    const pidFile = join(tempDir(), "fake.pid");
    // The fake server says where it wrote its pids through a variable passed to it by name.
    const { cli, watch } = runOcb(["--demo", "--pass-env", "FAKE_PID_FILE", "[[reply never]]"], {
      env: { OPENCODE_BIN: join(FAKES, "never-listens.sh"), FAKE_PID_FILE: pidFile },
    });
    await until("the server start", cli, () => existsSync(pidFile));
    // The fake and its child are running now: the watch must see them before they are stopped
    // (polling on its own, it could miss a process that lived only between two polls).
    watch.poll();
    const [fake, child] = readFileSync(pidFile, "utf8").split(" ").map(Number);
    expect(watch.seen.some((process) => process.command.includes("never-listens"))).toBe(true);
    expect(await ctrlC("while the server starts", cli)).toBe(130);
    expect(await leftOver(watch)).toEqual([]);
    expect([fake, child].filter((pid) => pid !== undefined && isRunning(pid))).toEqual([]);
  });

  it("while it waits for the model catalog: exits 130, the server stopped", async () => {
    const marker = join(tempDir(), "held");
    const { cli, watch } = runOcb(["--demo", "[[reply never]]"], {
      env: { OCB_TEST_HOLD: "catalog", OCB_TEST_HOLD_MARKER: marker },
      preload: [PHASE_HOLD],
    });
    await until("the catalog wait", cli, () => existsSync(marker));
    expect(watch.seen.some((process) => /opencode.* serve/.test(process.command))).toBe(true);
    expect(await ctrlC("during the catalog wait", cli)).toBe(130);
    expect(await leftOver(watch)).toEqual([]);
  });

  it("while the input waits for admission: exits 130, the server stopped", async () => {
    const marker = join(tempDir(), "held");
    const { cli, watch } = runOcb(["--demo", "[[reply never]]"], {
      env: { OCB_TEST_HOLD: "admission", OCB_TEST_HOLD_MARKER: marker },
      preload: [PHASE_HOLD],
    });
    await until("the admission", cli, () => existsSync(marker));
    expect(await ctrlC("during admission", cli)).toBe(130);
    expect(await leftOver(watch)).toEqual([]);
  });

  it("while the turn streams: interrupts it, exits 130, the server stopped, its temp dirs gone", async () => {
    const tmp = ownTmp();
    const { cli, watch } = runOcb(["--demo", "--json", "[[slow 60 250]]"], { tmp });
    await until("the first delta", cli, () => cli.stdout.includes('"text.delta"'));
    expect(await ctrlC("while streaming", cli)).toBe(130);
    expect(cli.stdout).toMatch(/"turn.ended".*"outcome":"interrupted"/);
    expect(await leftOver(watch)).toEqual([]);
    expect(await tempLeftOver(tmp)).toEqual([]);
  });

  it("while an `opencode run` turn runs (--backend subprocess): exits 130, nothing left", async () => {
    const { cli, watch } = await runSubprocessTurn("[[slow 60 250]]");
    expect(await ctrlC("while an opencode run turn runs", cli)).toBe(130);
    expect(await leftOver(watch)).toEqual([]);
  });

  it("at an ask at the terminal prompt: exits 130, the server stopped", async () => {
    const dir = tempDir();
    const file = join(dir, "file.txt");
    const prompt = `[[tool write ${JSON.stringify({ path: file, content: "hi" })}]] [[then done]]`;
    const { cli, watch } = runOcb(["--demo", "--permissions", "ask", "--dir", dir, prompt], {
      tty: true,
    });
    await until("the ask", cli, () => cli.stdout.includes("Allow?"));
    const pressed = performance.now();
    cli.type("\x03"); // the key: a terminal in raw mode sends no signal
    expect(await exitOf("at an ask", cli, pressed)).toBe(130);
    expect(existsSync(file)).toBe(false);
    expect(await leftOver(watch)).toEqual([]);
  });

  it("twice while a server ignores SIGTERM: exits 130 at once, its whole group killed, its temp dirs gone", async () => {
    const pidFile = join(tempDir(), "fake.pid");
    const tmp = ownTmp();
    const { cli, watch } = runOcb(["--demo", "--pass-env", "FAKE_PID_FILE", "[[reply never]]"], {
      env: { OPENCODE_BIN: join(FAKES, "never-listens-ignores-term.sh"), FAKE_PID_FILE: pidFile },
      tmp,
    });
    await until("the server start", cli, () => existsSync(pidFile));
    expect(await ctrlC("twice, server ignoring SIGTERM", cli, 2)).toBe(130);
    expect(await leftOver(watch)).toEqual([]);
    // The demo's scratch dir (an exit hook), the server's root and its keeper's dir (the keeper).
    expect(await tempLeftOver(tmp)).toEqual([]);
  });
});

describe("Ctrl-C at ocb serve", () => {
  it("once while it serves: the sidecar, the bridge and its server stop; exits 0, nothing left", async () => {
    const dir = tempDir();
    const cli = startOcb(["serve", "--demo", "--dir", dir, "--store", join(dir, "store.db")], {
      env: { OCB_TOKEN: "" },
    });
    const watch = new DescendantWatch(cli.pid);
    clis.push(cli);
    watches.push(watch);
    await until("the sidecar listening", cli, () => /^token: \S+$/m.test(cli.stdout));
    const url = /listening on (http:\/\/\S+)/.exec(cli.stdout)?.[1] ?? "";
    const token = /^token: (\S+)$/m.exec(cli.stdout)?.[1] ?? "";
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true, opencode: "up" });
    const sessions = await fetch(`${url}/v1/sessions`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(sessions.status).toBe(200);
    watch.poll();
    expect(watch.seen.some((process) => /opencode.* serve/.test(process.command))).toBe(true);
    expect(await ctrlC("once at serve", cli)).toBe(0);
    expect(await leftOver(watch)).toEqual([]);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(cli.stderr).toContain("sidecar stopping");
    expect(cli.stderr).not.toContain(token);
  });

  it("twice while its server ignores SIGTERM: exits 130 at once, its whole group killed", async () => {
    const dir = tempDir();
    const pidFile = join(dir, "fake.pid");
    const args = ["serve", "--dir", dir, "--store", join(dir, "store.db")];
    const cli = startOcb([...args, "--pass-env", "FAKE_PID_FILE"], {
      env: { OPENCODE_BIN: join(FAKES, "never-listens-ignores-term.sh"), FAKE_PID_FILE: pidFile },
    });
    const watch = new DescendantWatch(cli.pid);
    clis.push(cli);
    watches.push(watch);
    await until("the server start", cli, () => existsSync(pidFile));
    watch.poll();
    const [fake, child] = readFileSync(pidFile, "utf8").split(" ").map(Number);
    expect(await ctrlC("twice at serve, server ignoring SIGTERM", cli, 2)).toBe(130);
    expect(await leftOver(watch)).toEqual([]);
    expect([fake, child].filter((pid) => pid !== undefined && isRunning(pid))).toEqual([]);
  });
});

describe("ocb run killed outright (SIGKILL) mid-turn", () => {
  it("leaves no opencode process: the server's keeper stops it at once, and removes its temp dirs", async () => {
    const tmp = ownTmp();
    const { cli, watch } = runOcb(["--demo", "--json", "[[slow 60 250]]"], { tmp });
    await until("the first delta", cli, () => cli.stdout.includes('"text.delta"'));
    const servers = watch.seen.filter((process) => /opencode.* serve/.test(process.command));
    expect(servers).not.toHaveLength(0);
    expect(await killOutright("its opencode processes", cli, watch)).toEqual([]);
    expect(await leftOver(watch)).toEqual([]);
    // The demo's scratch dir stays: a process killed outright runs no code of its own.
    const left = await tempLeftOver(tmp);
    expect(left.filter((name) => !name.startsWith("ocb-demo-"))).toEqual([]);
  });

  it("--backend subprocess: leaves no opencode run process either", async () => {
    const { cli, watch } = await runSubprocessTurn("[[slow 200 250]]");
    expect(await killOutright("opencode run (--backend subprocess)", cli, watch)).toEqual([]);
    expect(await leftOver(watch)).toEqual([]);
  });
});
