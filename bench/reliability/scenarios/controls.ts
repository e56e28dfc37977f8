/**
 * Undo, redo, fork and slash commands under client cuts and sidecar kills: a real `ocb serve`
 * (the real `opencode`, the scripted model) in a process of its own, SIGKILLed and started
 * again on the same store, round after round; WebSocket clients following the session and its
 * forks, cut at random and resuming from their last seq; sends and command runs cut
 * mid-request and sent again with their idempotency key. Each round: a send, a command run,
 * an undo of the command's input, a redo, a fork at the round's send, and a slow turn; the
 * sidecar is killed between the undo and the redo (even rounds; the redo is then the new
 * sidecar's) or in the middle of the slow turn (odd rounds; the new sidecar adopts it).
 * Must hold at the end: every client's durable lists equal the store's (nothing lost, nothing
 * twice, no gap), every admitted turn ended exactly once, each send and command run admitted
 * once (one input.admitted per key), one session.reverted per undo and one session.unreverted
 * per redo, one fork session (with one session.forked) per fork, no refused call, no process
 * left.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { SqliteStore } from "../../../src/store/sqlite-store.js";
import { demoProviderConfig } from "../../../src/testing/demo-provider.js";
import { startScriptedModel } from "../../../src/testing/scripted-model/index.js";
import { type ServeProcess, ServeProcesses } from "../controls/serve-process.js";
import { SidecarCalls } from "../controls/sidecar-calls.js";
import { seededRandom } from "../faults/seeded-random.js";
import type { Scenario, ScenarioContext, ScenarioRow } from "../scenario.js";
import { type FollowerTarget, WsFollower } from "../sidecar/followers.js";
import type { AdmittedSend } from "../sidecar/sends.js";
import { compareCopy } from "../sidecar/session-copy.js";
import { readStore } from "../sidecar/store-check.js";

/** The full run and the short one (`npm test`'s). */
export const CONTROLS = {
  full: { rounds: 8, clients: 6 },
  short: { rounds: 2, clients: 3 },
} as const;
/** Share of sends and command runs cut mid-request (then sent again with their key). */
const CUT_SHARE = 0.4;
/** Clients are cut every so many ms, at random in this range. */
const CUT_EVERY_MS: readonly [number, number] = [300, 2_500];
/** Bound on a turn's end as the clients see it (a restart and an adoption on a loaded machine). */
const TURN_BOUND_MS = 120_000;
/** Bound on every client catching up at the end. */
const CATCH_UP_BOUND_MS = 60_000;
/** The slow turn: long enough to be killed in (40 chunks, 50 ms apart). */
const SLOW = "[[slow 40 50]]";
/** A kill lands this long after the slow turn's admission, at most. */
const MID_TURN_KILL_MS = 1_500;

const secretText = () => randomBytes(24).toString("base64url");

/** The project: a git repository (OpenCode snapshots files only in one) with a command. */
function project(workDir: string): string {
  const directory = join(workDir, "project");
  mkdirSync(join(directory, ".opencode", "command"), { recursive: true });
  writeFileSync(
    join(directory, ".opencode", "command", "greet.md"),
    "---\ndescription: Greets\n---\n[[reply hello $ARGUMENTS from the command]]\n",
  );
  return directory;
}

interface Run {
  serves: ServeProcesses;
  serve: ServeProcess;
  calls: SidecarCalls;
  followers: WsFollower[];
  /** Each follower's target: its URL is set to the new sidecar's at every restart. */
  targets: FollowerTarget[];
  admitted: AdmittedSend[];
  /** Sessions made by forks. */
  forks: string[];
  undos: number;
  redos: number;
  kills: number;
  /** The slow turns a kill was aimed at, and when the kill came. */
  midTurnKills: { turnId: string; killedAt: number }[];
  clientCuts: number;
}

const connecting = new WeakMap<WsFollower, Promise<void>>();

/**
 * Connects `follower` unless it is connected or connecting: two live sockets of one client
 * would deliver every event twice (the cut loop, the kills and the waits all reconnect).
 */
function reconnect(follower: WsFollower): Promise<void> {
  if (follower.connected) return Promise.resolve();
  const pending = connecting.get(follower);
  if (pending !== undefined) return pending;
  const attempt = follower.connect().finally(() => connecting.delete(follower));
  connecting.set(follower, attempt);
  return attempt;
}

/** Waits until a client's copy of `sessionId` has the end of `turnId`. */
async function turnEnded(run: Run, sessionId: string, turnId: string): Promise<boolean> {
  const deadline = Date.now() + TURN_BOUND_MS;
  const watcher = run.followers[0];
  while (Date.now() < deadline) {
    const events = watcher?.copies.get(sessionId)?.events ?? [];
    if (events.some((event) => event.type === "turn.ended" && event.turnId === turnId)) return true;
    if (watcher !== undefined) await reconnect(watcher);
    await delay(100);
  }
  return false;
}

/** Every client connected and holding each session's last durable event, within a bound. */
async function caughtUp(run: Run, sessions: readonly string[]): Promise<boolean> {
  const deadline = Date.now() + CATCH_UP_BOUND_MS;
  const last = new Map<string, number>();
  for (const id of sessions) {
    const info = (await run.calls.get(`/v1/sessions/${id}`)) as { lastSeq?: number };
    last.set(id, info.lastSeq ?? Number.POSITIVE_INFINITY);
  }
  while (Date.now() < deadline) {
    await Promise.all(run.followers.map(reconnect));
    const behind = run.followers.some((follower) =>
      [...follower.copies].some(([id, copy]) => copy.lastSeq < (last.get(id) ?? 0)),
    );
    if (!behind) return true;
    await delay(250);
  }
  return false;
}

/** SIGKILL of the sidecar, a new one on the same store, every client back on it. */
async function killAndRestart(run: Run): Promise<void> {
  await run.serves.kill(run.serve);
  run.kills++;
  run.serve = await run.serves.start();
  run.calls.target.url = run.serve.url;
  for (const target of run.targets) target.url = run.serve.url;
  await Promise.all(run.followers.map(reconnect));
}

/** Clients cut at random until `stop` says so; each reconnects after a short pause. */
async function cutClients(run: Run, random: () => number, stop: { now: boolean }) {
  while (!stop.now) {
    await delay(CUT_EVERY_MS[0] + random() * (CUT_EVERY_MS[1] - CUT_EVERY_MS[0]));
    if (stop.now) return;
    // The first client is the scenario's watcher: it is cut only by the kills.
    const follower = run.followers[1 + Math.floor(random() * (run.followers.length - 1))];
    if (follower === undefined) continue;
    follower.cut();
    run.clientCuts++;
    await delay(random() * 300);
    await reconnect(follower);
  }
}

/** One round on `sessionId`; false when a turn did not end in time (the run stops there). */
async function round(run: Run, sessionId: string, index: number, random: () => number) {
  const path = `/v1/sessions/${sessionId}`;
  const cut = () => (random() < CUT_SHARE ? 1 + Math.floor(random() * 30) : undefined);
  const keep = (sent: { turnId: string; inputId: string } | undefined, key: string) => {
    if (sent !== undefined) run.admitted.push({ sessionId, key, ...sent });
    return sent;
  };
  const send = keep(
    await run.calls.keyed(
      `${path}/inputs`,
      { text: `[[reply round ${index}]]`, delivery: "queue" },
      cut(),
    ),
    `send ${index}`,
  );
  if (send === undefined || !(await turnEnded(run, sessionId, send.turnId))) return false;
  const command = keep(
    await run.calls.keyed(
      `${path}/command`,
      { name: "greet", arguments: `round ${index}`, delivery: "queue" },
      cut(),
    ),
    `command ${index}`,
  );
  if (command === undefined || !(await turnEnded(run, sessionId, command.turnId))) return false;
  if ((await run.calls.post(`${path}/revert`, { inputId: command.inputId }, 200)) !== undefined) {
    run.undos++;
  }
  if (index % 2 === 0) await killAndRestart(run);
  if ((await run.calls.post(`${path}/unrevert`, undefined, 200)) !== undefined) run.redos++;
  const fork = await run.calls.post(`${path}/fork`, { inputId: send.inputId }, 201);
  if (typeof fork?.id === "string") {
    run.forks.push(fork.id);
    for (const follower of run.followers) follower.follow(fork.id);
  }
  const slow = keep(
    await run.calls.keyed(`${path}/inputs`, { text: SLOW, delivery: "queue" }, undefined),
    `slow ${index}`,
  );
  if (slow === undefined) return false;
  if (index % 2 === 1) {
    await delay(random() * MID_TURN_KILL_MS);
    run.midTurnKills.push({ turnId: slow.turnId, killedAt: Date.now() });
    await killAndRestart(run);
  }
  return await turnEnded(run, sessionId, slow.turnId);
}

export const controlsScenario: Scenario = {
  name: "controls",
  summary:
    "undo, redo, fork and slash commands under client cuts and sidecar kills: nothing lost or doubled",
  async run(context: ScenarioContext) {
    const config = context.short ? CONTROLS.short : CONTROLS.full;
    const seeded = seededRandom(context.seed);
    const random = () => seeded.next();
    context.note(
      `controls: ${config.rounds} rounds, ${config.clients} clients, seed ${context.seed}`,
    );
    const model = await startScriptedModel({ keepRequests: 16 });
    const token = secretText();
    context.secret(token);
    const configFile = join(context.workDir, "opencode-config.json");
    writeFileSync(configFile, JSON.stringify(demoProviderConfig(model.url)));
    const storePath = join(context.workDir, "store.db");
    const serves = new ServeProcesses({
      directory: project(context.workDir),
      store: storePath,
      config: configFile,
      token,
      logDir: context.workDir,
    });
    const stop = { now: false };
    let run: Run | undefined;
    let roundsDone = 0;
    let sessionId = "";
    let leaked = 0;
    let allCaughtUp = false;
    try {
      const serve = await serves.start();
      const target = { url: serve.url, auth: { authorization: `Bearer ${token}` } };
      const calls = new SidecarCalls(target);
      const created = await calls.post("/v1/sessions", { title: "controls" }, 201);
      if (typeof created?.id !== "string") {
        throw new Error(`creating the session failed: ${calls.tally.firstRefusal}`);
      }
      sessionId = created.id;
      // Half the clients connect with tickets, as a browser does.
      const targets = Array.from({ length: config.clients }, (_, index) => ({
        ...target,
        ticketed: index % 2 === 1,
      }));
      const followers = targets.map((each) => new WsFollower(each, [sessionId]));
      run = {
        serves,
        serve,
        calls,
        followers,
        targets,
        admitted: [],
        forks: [],
        undos: 0,
        redos: 0,
        kills: 0,
        midTurnKills: [],
        clientCuts: 0,
      };
      await Promise.all(followers.map(reconnect));
      const cutting = cutClients(run, random, stop);
      try {
        for (let index = 0; index < config.rounds; index++) {
          if (!(await round(run, sessionId, index, random))) break;
          roundsDone++;
          context.sampleRss();
        }
      } finally {
        stop.now = true;
        await cutting;
      }
      // Every client back on and caught up with what the sidecar has, then the sidecar stopped.
      allCaughtUp = await caughtUp(run, [sessionId, ...run.forks]);
      for (const follower of followers) follower.cut();
      await serves.stop(run.serve);
    } finally {
      stop.now = true;
      for (const follower of run?.followers ?? []) follower.cut();
      leaked = serves.sweep();
      await model.close();
    }
    return await controlsRow(
      run,
      { storePath, sessionId, roundsDone, leaked, allCaughtUp },
      context,
    );
  },
};

async function controlsRow(
  run: Run,
  end: {
    storePath: string;
    sessionId: string;
    roundsDone: number;
    leaked: number;
    allCaughtUp: boolean;
  },
  context: ScenarioContext,
): Promise<Omit<ScenarioRow, "scenario" | "peakRssBytes">> {
  const config = context.short ? CONTROLS.short : CONTROLS.full;
  const store = SqliteStore.open(end.storePath);
  try {
    const sessions = [end.sessionId, ...run.forks];
    const view = await readStore(store, sessions, run.admitted);
    // A fork's list begins with its origin's events up to the fork (same turn ids): a turn's
    // ends are counted in the session it ran in.
    const ends = (await readStore(store, [end.sessionId], run.admitted)).endsPerTurn;
    let lost = 0;
    let duplicated = 0;
    let mismatched = 0;
    let gaps = 0;
    for (const follower of run.followers) {
      for (const [id, copy] of follower.copies) {
        const diff = compareCopy(copy, view.lists.get(id) ?? []);
        lost += diff.lost;
        duplicated += diff.duplicated;
        mismatched += diff.mismatched;
        gaps += copy.gaps;
      }
    }
    // The store's own lists: seqs dense from 1, no event id twice.
    let storeFaults = 0;
    for (const list of view.lists.values()) {
      list.forEach((event, at) => {
        if (event.seq !== at + 1) storeFaults++;
      });
      storeFaults += list.length - new Set(list.map((event) => event.id)).size;
    }
    const main = view.lists.get(end.sessionId) ?? [];
    // A kill aimed at a slow turn landed in it when the turn's end came after the kill.
    const mainEvents = await store.read(end.sessionId, { after: 0 });
    const landedMidTurn = run.midTurnKills.filter(({ turnId, killedAt }) =>
      mainEvents.some((e) => e.type === "turn.ended" && e.turnId === turnId && e.at > killedAt),
    ).length;
    const count = (type: string) => main.filter((event) => event.type === type).length;
    const admittedInputs = count("input.admitted");
    const turns = [...ends.values()];
    const once = turns.filter((ends) => ends === 1).length;
    const unended = run.admitted.filter((send) => (ends.get(send.turnId) ?? 0) !== 1);
    const forked = run.forks.filter(
      (id) => (view.lists.get(id) ?? []).filter((e) => e.type === "session.forked").length === 1,
    ).length;
    const errors = new Map<string, number>();
    let failedConnects = 0;
    for (const { trouble } of run.followers) {
      failedConnects += trouble.failedConnects;
      for (const [code, n] of trouble.errors) errors.set(code, (errors.get(code) ?? 0) + n);
    }
    const sidecarErrors = [...errors].map(([code, n]) => `${code} ×${n}`).join(", ");
    const refused = [...run.calls.tally.refused].map(([s, n]) => `${s} ×${n}`).join(", ");
    const serverErrors = [...run.calls.tally.refused]
      .filter(([status]) => status >= 500 || status === 0)
      .reduce((sum, [, n]) => sum + n, 0);
    const passed =
      end.roundsDone === config.rounds &&
      end.allCaughtUp &&
      sidecarErrors === "" &&
      lost === 0 &&
      duplicated === 0 &&
      mismatched === 0 &&
      gaps === 0 &&
      storeFaults === 0 &&
      once === turns.length &&
      unended.length === 0 &&
      admittedInputs === run.admitted.length &&
      count("session.reverted") === run.undos &&
      count("session.unreverted") === run.redos &&
      run.undos === end.roundsDone &&
      run.redos === end.roundsDone &&
      run.forks.length === end.roundsDone &&
      forked === run.forks.length &&
      run.calls.tally.refused.size === 0 &&
      end.leaked === 0;
    return {
      load: `${config.rounds} rounds × (send, command, undo, redo, fork, slow turn), ${config.clients} clients`,
      faultsInjected: run.kills + run.clientCuts + run.calls.tally.cut,
      turnsEndedOnce: { once, started: turns.length },
      durableLost: lost,
      duplicated: duplicated + Math.max(0, admittedInputs - run.admitted.length),
      crashes: serverErrors,
      leakedProcesses: end.leaked,
      passed,
      notes: [
        `seed ${context.seed}; ${end.roundsDone} of ${config.rounds} rounds done`,
        `${run.kills} sidecar kills (SIGKILL; between an undo and its redo, or mid-turn: ${landedMidTurn} of ${run.midTurnKills.length} aimed at a turn landed before its end), ${run.clientCuts} client cuts, ${run.calls.tally.cut} sends and command runs cut mid-request and sent again with their key`,
        `${run.admitted.length} sends and command runs admitted, ${admittedInputs} input.admitted in the store; ${unended.length} turns without exactly one end`,
        ...unended
          .slice(0, 3)
          .map(
            (send) =>
              `turn of ${send.key} (${send.turnId}) ended ${ends.get(send.turnId) ?? 0} times`,
          ),
        `${run.undos} undos and ${run.redos} redos answered, ${count("session.reverted")} session.reverted and ${count("session.unreverted")} session.unreverted stored`,
        `${run.forks.length} forks answered, ${forked} with exactly one session.forked`,
        `client lists against the store: ${lost} lost, ${duplicated} duplicated, ${mismatched} mismatched, ${gaps} gaps; store lists not dense or with an id twice: ${storeFaults}`,
        `all clients caught up at the end: ${end.allCaughtUp ? "yes" : "NO"}; ${failedConnects} connects failed (a client cut while the sidecar restarted tries again)`,
        ...(sidecarErrors === "" ? [] : [`errors from the sidecar: ${sidecarErrors}`]),
        ...(refused === ""
          ? []
          : [`refused calls: ${refused}; first: ${run.calls.tally.firstRefusal ?? ""}`]),
      ],
    };
  } finally {
    store.close();
  }
}
