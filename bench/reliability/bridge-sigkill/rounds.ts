/**
 * The rounds of the bridge-sigkill scenario, all on one session (so that each successor adopts a
 * session with the history of every round before, from a store every killed bridge wrote to):
 * a bridge child sends a turn and is SIGKILLed a random time after its admission, while the
 * turn runs; a new child on the same store takes up the managed server, adopts the turn, waits
 * for its end and sends the next; in some rounds that successor is itself killed as it opens
 * the session, and another one adopts the turn. The last child adopts the last killed turn, runs one turn
 * nobody interrupts (the reference the others are compared with) and closes its bridge, which
 * stops the server every child took up.
 */
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { SqliteStore } from "../../../src/store/sqlite-store.js";
import { BridgeChild } from "./bridge-child.js";
import type { Leftovers } from "./leftovers.js";
import { type ChildSetup, REPLY } from "./messages.js";

/** Bounds on what a child reports: a cold `opencode serve` on a loaded machine starts slowly. */
const START_BOUND_MS = 90_000;
const STEP_BOUND_MS = 60_000;

/** Where in its turn a kill landed, read from what the store had kept of the turn. */
export type KillPhase = "admitted" | "started" | "tool" | "reply" | "ended";

/** One round: when its bridge is killed, and whether its successor is killed too. */
export interface RoundPlan {
  /** The kill of the bridge running the turn, ms after the turn's admission. */
  killAfterMs: number;
  /** Kill the successor too, this long after its bridge is up (while it opens the session). */
  restartKillAfterMs?: number;
}

export interface RoundsResult {
  sessionId: string | undefined;
  /** The uninterrupted turn of the last child. */
  referenceTurnId: string | undefined;
  /** Turns the children sent (each must end once). */
  turnsSent: number;
  /** Kills of a bridge running a turn. */
  kills: number;
  /** Kills of a successor while it opened the session. */
  restartKills: number;
  phases: KillPhase[];
  /** Restarts whose child took up the server that was running (not a new one). */
  takenUp: number;
  /** Restarts whose bridge named the killed child's turn as its running turn. */
  adopted: number;
  /** From a restarted child's spawn to its session opened (the turn adopted), ms. */
  adoptionMs: number[];
  /** From the session opened to the adopted turn's end, ms. */
  endAfterOpenMs: number[];
  /** Children that failed or exited without being killed. */
  crashes: number;
  /** The first thing that went wrong, if the rounds stopped early. */
  failure: string | undefined;
  /** Findings that did not stop the rounds. */
  findings: string[];
}

export interface RoundsOptions {
  workDir: string;
  config: Record<string, unknown>;
  /** The rounds, from the scenario's seed. */
  plan: readonly RoundPlan[];
  orphanTimeoutMs: number;
  leftovers: Leftovers;
  secret(value: string): void;
  note(line: string): void;
}

/** What the store had kept of `turnId` when its bridge was killed. */
async function phaseOf(storePath: string, sessionId: string, turnId: string): Promise<KillPhase> {
  const store = SqliteStore.open(storePath);
  try {
    const types = new Set(
      (await store.read(sessionId)).filter((e) => e.turnId === turnId).map((e) => e.type),
    );
    if (types.has("turn.ended")) return "ended";
    if (types.has("text.started")) return "reply";
    if (types.has("tool.called") || types.has("tool.input.started")) return "tool";
    return types.has("turn.started") ? "started" : "admitted";
  } finally {
    await store.close();
  }
}

export async function runRounds(options: RoundsOptions): Promise<RoundsResult> {
  const { workDir, leftovers } = options;
  const store = join(workDir, "store.db");
  const directory = join(workDir, "project");
  const result: RoundsResult = {
    sessionId: undefined,
    referenceTurnId: undefined,
    turnsSent: 0,
    kills: 0,
    restartKills: 0,
    phases: [],
    takenUp: 0,
    adopted: 0,
    adoptionMs: [],
    endAfterOpenMs: [],
    crashes: 0,
    failure: undefined,
    findings: [],
  };
  let index = 0;
  const spawn = (role: ChildSetup["role"], expectTurnId?: string): BridgeChild => {
    const child = new BridgeChild(
      {
        store,
        directory,
        log: join(workDir, `bridge-${index}.log`),
        config: options.config,
        orphanTimeoutMs: options.orphanTimeoutMs,
        role,
        ...(result.sessionId === undefined ? {} : { sessionId: result.sessionId }),
        ...(expectTurnId === undefined ? {} : { expectTurnId }),
      },
      join(workDir, `bridge-${index}.stderr`),
    );
    index++;
    leftovers.child(child.pid);
    return child;
  };
  const started = async (child: BridgeChild): Promise<number> => {
    const { serverPid, password } = await child.next("started", START_BOUND_MS);
    options.secret(password);
    leftovers.server(serverPid);
    return serverPid;
  };

  const sent = async (child: BridgeChild): Promise<string> => {
    const { turnId } = await child.next("sent", STEP_BOUND_MS);
    result.turnsSent++;
    return turnId;
  };

  let child = spawn("first");
  try {
    let serverPid = await started(child);
    result.sessionId = (await child.next("opened", STEP_BOUND_MS)).sessionId;
    let turnId = await sent(child);
    for (const [round, { killAfterMs, restartKillAfterMs }] of options.plan.entries()) {
      await delay(killAfterMs);
      await child.kill();
      result.kills++;
      result.phases.push(await phaseOf(store, result.sessionId, turnId));
      const role = round === options.plan.length - 1 ? "last" : "next";
      let spawnedAt = Date.now();
      child = spawn(role, turnId);
      let restartedOn = await started(child);
      if (restartKillAfterMs !== undefined) {
        await delay(restartKillAfterMs);
        await child.kill();
        result.restartKills++;
        // Quicker than the kill, it may have seen the turn end and sent the next one.
        const moved = child.last("sent");
        if (moved !== undefined) {
          turnId = moved.turnId;
          result.turnsSent++;
        }
        spawnedAt = Date.now();
        child = spawn(role, turnId);
        restartedOn = await started(child);
      }
      const upAt = Date.now();
      if (restartedOn === serverPid) result.takenUp++;
      else
        result.findings.push(
          `round ${round + 1}: server ${serverPid} not taken up (${restartedOn} instead)`,
        );
      serverPid = restartedOn;
      const { adoptedTurnId } = await child.next("opened", STEP_BOUND_MS);
      const openedAt = Date.now();
      result.adoptionMs.push(openedAt - spawnedAt);
      if (adoptedTurnId === turnId) result.adopted++;
      else
        result.findings.push(
          `round ${round + 1}: adopted ${adoptedTurnId ?? "no turn"}, not ${turnId}`,
        );
      const ended = await child.next("ended", STEP_BOUND_MS);
      const endedAt = Date.now();
      result.endAfterOpenMs.push(endedAt - openedAt);
      if (ended.turnId !== turnId || ended.outcome !== "completed" || ended.text !== REPLY) {
        result.findings.push(
          `round ${round + 1}: turn ${ended.turnId} ended ${ended.outcome}: ${ended.text}`,
        );
      }
      turnId = await sent(child);
      const restartKill =
        restartKillAfterMs === undefined
          ? ""
          : `, its successor killed ${restartKillAfterMs} ms after its bridge was up`;
      options.note(
        `bridge-sigkill: round ${round + 1} of ${options.plan.length}: killed ${killAfterMs} ms after the admission (${result.phases.at(-1)})${restartKill}; ` +
          `bridge up ${upAt - spawnedAt} ms, session opened ${openedAt - upAt} ms, turn ended ${endedAt - openedAt} ms later`,
      );
    }
    result.referenceTurnId = turnId;
    await child.next("ended", STEP_BOUND_MS);
    await child.next("closed", STEP_BOUND_MS);
    await child.exited;
  } catch (error) {
    result.crashes++;
    result.failure = error instanceof Error ? error.message : String(error);
  } finally {
    await child.kill();
  }
  return result;
}
