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
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SqliteStore } from "../../../src/store/sqlite-store.js";
import { demoProviderConfig } from "../../../src/testing/demo-provider.js";
import { startScriptedModel } from "../../../src/testing/scripted-model/index.js";
import { caughtUp, cutClients, type Run, reconnect, round } from "../controls/rounds.js";
import { ServeProcesses } from "../controls/serve-process.js";
import { SidecarCalls } from "../controls/sidecar-calls.js";
import { seededRandom } from "../faults/seeded-random.js";
import type { Scenario, ScenarioContext, ScenarioRow } from "../scenario.js";
import { WsFollower } from "../sidecar/followers.js";
import { compareCopy } from "../sidecar/session-copy.js";
import { readStore } from "../sidecar/store-check.js";

/** The full run and the short one (`npm test`'s). */
export const CONTROLS = {
  full: { rounds: 8, clients: 6 },
  short: { rounds: 2, clients: 3 },
} as const;

const secretText = () => randomBytes(24).toString("base64url");

/** The project: a git repository (OpenCode snapshots files only in one) with a command. */
function project(workDir: string): string {
  const directory = join(workDir, "project");
  mkdirSync(join(directory, ".opencode", "command"), { recursive: true });
  writeFileSync(
    join(directory, ".opencode", "command", "greet.md"),
    "---\ndescription: Greets\n---\n[[reply hello $ARGUMENTS from the command]]\n",
  );
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=controls", "-c", "user.email=c@example.com", ...args], {
      cwd: directory,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "start");
  return directory;
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
