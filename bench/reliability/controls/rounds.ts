/**
 * The rounds of the controls scenario (scenarios/controls.ts) and what they share: the sidecar
 * running now, its clients, and the tally of what was asked and answered. A round is a send, a
 * command run, an undo and a redo, a fork and a slow turn; the sidecar is SIGKILLed and started
 * again between the undo and the redo (even rounds) or in the middle of the slow turn (odd).
 */
import { setTimeout as delay } from "node:timers/promises";
import type { FollowerTarget, WsFollower } from "../sidecar/followers.js";
import type { AdmittedSend } from "../sidecar/sends.js";
import type { ServeProcess, ServeProcesses } from "./serve-process.js";
import type { SidecarCalls } from "./sidecar-calls.js";

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

export interface Run {
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
export function reconnect(follower: WsFollower): Promise<void> {
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
export async function caughtUp(run: Run, sessions: readonly string[]): Promise<boolean> {
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
export async function cutClients(run: Run, random: () => number, stop: { now: boolean }) {
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
export async function round(run: Run, sessionId: string, index: number, random: () => number) {
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
