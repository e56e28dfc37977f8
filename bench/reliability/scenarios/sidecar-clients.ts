/**
 * Many clients of one real sidecar (the real `opencode` and the scripted model behind it) over
 * a handful of sessions: WebSocket clients (some sessions each) and SSE clients (one each)
 * that connect, subscribe, get cut, resume from their last seq and send, at random from the
 * suite's seed. Must hold at the end: every client's durable list of every session it followed
 * equals the store's (same ids and seqs, in order, no gap, nothing twice), every send admitted
 * had its turn end, every turn ended exactly once, no error from the sidecar, no process left.
 */
import type { Scenario, ScenarioContext, ScenarioRow } from "../scenario.js";
import { type Follower, SseFollower, WsFollower } from "../sidecar/followers.js";
import { type SidecarRig, startSidecarRig } from "../sidecar/rig.js";
import { newSendTally, promptFor, type SendTally, sendOnce } from "../sidecar/sends.js";
import { compareCopy } from "../sidecar/session-copy.js";
import { allEnded, readStore, type StoreView } from "../sidecar/store-check.js";

/** The full run (the issue's numbers) and the short one. */
export const SIDECAR_CLIENTS = {
  // 1.5 sends a second: about what 5 sessions of the scripted model turn through beside the
  // suite's other load (at 2, a backlog of turns took 168 s to drain after the 5 minutes).
  full: { clients: 100, sessions: 5, seconds: 300, sendsPerSecond: 1.5, cutEverySeconds: [2, 12] },
  short: { clients: 20, sessions: 3, seconds: 12, sendsPerSecond: 1.5, cutEverySeconds: [1, 5] },
} as const;
/** Share of clients on SSE (the rest on WebSocket); of clients connecting with tickets, as a browser. */
const SSE_SHARE = 0.2;
const TICKETED_SHARE = 0.3;
/** Share of sends cut mid-request and sent again with the same key; of sends that steer. */
const CUT_SEND_SHARE = 0.1;
const STEER_SHARE = 0.15;
/** Bounds on the end: the turns admitted to end, then every client to catch up. */
const SETTLE_BOUND_MS = 180_000;
const CATCH_UP_BOUND_MS = 60_000;

/** A small seeded generator (mulberry32): the run repeats from its seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => Promise<boolean>, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(250);
  }
  return check();
}

async function createSessions(rig: SidecarRig, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const response = await fetch(`${rig.url}/v1/sessions`, {
      method: "POST",
      headers: { ...rig.auth, "content-type": "application/json" },
      body: JSON.stringify({ title: `clients ${index + 1}` }),
      signal: AbortSignal.timeout(60_000),
    });
    if (response.status !== 201) throw new Error(`creating a session answered ${response.status}`);
    ids.push(((await response.json()) as { id: string }).id);
  }
  return ids;
}

interface Counts {
  cuts: number;
  reconnects: number;
}

/** One client's life until `deadline`: connected, cut at random, back after a pause. */
async function clientLoop(
  follower: Follower,
  sessions: readonly string[],
  random: () => number,
  cutEvery: readonly [number, number],
  deadline: number,
  counts: Counts,
): Promise<void> {
  const [least, most] = cutEvery;
  for (;;) {
    await sleep((least + random() * (most - least)) * 1000);
    if (Date.now() >= deadline) return;
    follower.cut();
    counts.cuts++;
    await sleep(random() * 300);
    // Now and then a WebSocket client takes up one more session, from its start.
    if (random() < 0.1) follower.follow(sessions[Math.floor(random() * sessions.length)] ?? "");
    await follower.connect();
    counts.reconnects++;
  }
}

async function senderLoop(
  rig: SidecarRig,
  followers: readonly Follower[],
  random: () => number,
  sendsPerSecond: number,
  deadline: number,
  tally: SendTally,
): Promise<void> {
  const sends: Promise<void>[] = [];
  for (let sent = 0; ; sent++) {
    await sleep((-Math.log(1 - random()) / sendsPerSecond) * 1000);
    if (Date.now() >= deadline) break;
    const follower = followers[Math.floor(random() * followers.length)];
    const followed = [...(follower?.copies.keys() ?? [])];
    const sessionId = followed[Math.floor(random() * followed.length)];
    if (sessionId === undefined) continue;
    const cut = random() < CUT_SEND_SHARE;
    sends.push(
      sendOnce(rig, tally, {
        sessionId,
        text: promptFor(Math.floor(random() * 4), `s${sent}`),
        delivery: random() < STEER_SHARE ? "steer" : "queue",
        ...(cut ? { cutAfterMs: 1 + Math.floor(random() * 40) } : {}),
      }),
    );
  }
  await Promise.all(sends);
}

/** Every follower's copies against the store's lists. */
function compareAll(followers: readonly Follower[], view: StoreView) {
  let lost = 0;
  let duplicated = 0;
  let mismatched = 0;
  let gaps = 0;
  let lists = 0;
  let events = 0;
  for (const follower of followers) {
    for (const [sessionId, copy] of follower.copies) {
      const diff = compareCopy(copy, view.lists.get(sessionId) ?? []);
      lost += diff.lost;
      duplicated += diff.duplicated;
      mismatched += diff.mismatched;
      gaps += copy.gaps;
      lists++;
      events += copy.events.length;
    }
  }
  return { lost, duplicated, mismatched, gaps, lists, events };
}

function troubleOf(followers: readonly Follower[]): { errors: string; failedConnects: number } {
  const errors = new Map<string, number>();
  let failedConnects = 0;
  for (const { trouble } of followers) {
    failedConnects += trouble.failedConnects;
    for (const [code, n] of trouble.errors) errors.set(code, (errors.get(code) ?? 0) + n);
  }
  return { errors: [...errors].map(([code, n]) => `${code} ×${n}`).join(", "), failedConnects };
}

export const sidecarClientsScenario: Scenario = {
  name: "sidecar-clients",
  summary:
    "sidecar clients (WebSocket and SSE) connecting, cutting, resuming and sending at random: " +
    "every client's durable lists equal the store's, every send's turn ends once",
  async run(context: ScenarioContext) {
    const config = context.short ? SIDECAR_CLIENTS.short : SIDECAR_CLIENTS.full;
    const random = seededRandom(context.seed);
    context.note(
      `sidecar-clients: ${config.clients} clients, ${config.sessions} sessions, ${config.seconds} s, seed ${context.seed}`,
    );
    const rig = await startSidecarRig(context);
    const followers: Follower[] = [];
    const counts: Counts = { cuts: 0, reconnects: 0 };
    const sends = newSendTally();
    let leaked = 0;
    let view: StoreView;
    let settled: boolean;
    let caughtUp: boolean;
    let drainSeconds = 0;
    try {
      const sessions = await createSessions(rig, config.sessions);
      const pick = () => sessions[Math.floor(random() * sessions.length)] ?? "";
      for (let index = 0; index < config.clients; index++) {
        const target = { url: rig.url, auth: rig.auth, ticketed: random() < TICKETED_SHARE };
        const others = random() < 0.5 ? [pick()] : [];
        followers.push(
          random() < SSE_SHARE
            ? new SseFollower(target, pick())
            : new WsFollower(target, [...new Set([pick(), ...others])]),
        );
      }
      await Promise.all(followers.map((follower) => follower.connect()));
      const deadline = Date.now() + config.seconds * 1000;
      const rss = setInterval(context.sampleRss, 1_000);
      const progress = setInterval(() => {
        context.note(
          `sidecar-clients: ${sends.admitted.length} sends admitted, ${counts.cuts} cuts, ${Math.round((deadline - Date.now()) / 1000)} s left`,
        );
      }, 30_000);
      try {
        await Promise.all([
          ...followers.map((follower) =>
            clientLoop(follower, sessions, random, config.cutEverySeconds, deadline, counts),
          ),
          senderLoop(rig, followers, random, config.sendsPerSecond, deadline, sends),
        ]);
      } finally {
        clearInterval(rss);
        clearInterval(progress);
      }
      // The end: every admitted turn ends, then every client is connected and catches up.
      const loadEnded = Date.now();
      let tail: StoreView | undefined;
      settled = await waitUntil(async () => {
        tail = await readStore(rig.store, sessions, sends.admitted, tail);
        return allEnded(tail, sends.admitted);
      }, SETTLE_BOUND_MS);
      drainSeconds = (Date.now() - loadEnded) / 1000;
      await Promise.all(followers.filter((f) => !f.connected).map((f) => f.connect()));
      caughtUp = await waitUntil(async () => {
        for (const follower of followers) {
          for (const [sessionId, copy] of follower.copies) {
            if (copy.lastSeq < (await rig.store.lastSeq(sessionId))) return false;
          }
        }
        return true;
      }, CATCH_UP_BOUND_MS);
      view = await readStore(rig.store, sessions, sends.admitted);
    } finally {
      for (const follower of followers) follower.cut();
      leaked = await rig.close();
    }
    return clientsRow(
      followers,
      view,
      sends,
      counts,
      { settled, caughtUp, leaked, drainSeconds },
      context,
    );
  },
};

function clientsRow(
  followers: readonly Follower[],
  view: StoreView,
  sends: SendTally,
  counts: Counts,
  end: { settled: boolean; caughtUp: boolean; leaked: number; drainSeconds: number },
  context: ScenarioContext,
): Omit<ScenarioRow, "scenario" | "peakRssBytes"> {
  const config = context.short ? SIDECAR_CLIENTS.short : SIDECAR_CLIENTS.full;
  const diff = compareAll(followers, view);
  const turns = [...view.endsPerTurn.values()];
  const once = turns.filter((ends) => ends === 1).length;
  const unended = sends.admitted.filter((send) => (view.endsPerTurn.get(send.turnId) ?? 0) === 0);
  const trouble = troubleOf(followers);
  const refused = [...sends.refused].map(([status, n]) => `${status} ×${n}`).join(", ");
  const serverErrors = [...sends.refused].filter(([status]) => status >= 500).length;
  const sse = followers.filter((follower) => follower.transport === "sse").length;
  const ticketed = followers.filter((follower) => follower.ticketed).length;
  const passed =
    end.settled &&
    end.caughtUp &&
    diff.lost === 0 &&
    diff.duplicated === 0 &&
    diff.mismatched === 0 &&
    diff.gaps === 0 &&
    once === turns.length &&
    unended.length === 0 &&
    sends.refused.size === 0 &&
    sends.unanswered === 0 &&
    trouble.errors === "" &&
    trouble.failedConnects === 0 &&
    end.leaked === 0;
  return {
    load: `${config.clients} clients (${sse} SSE) × ${config.sessions} sessions × ${config.seconds} s`,
    faultsInjected: counts.cuts + sends.cut,
    turnsEndedOnce: { once, started: turns.length },
    durableLost: diff.lost,
    duplicated: diff.duplicated,
    crashes: serverErrors,
    leakedProcesses: end.leaked,
    passed,
    notes: [
      `seed ${context.seed}`,
      `${ticketed} clients connect with a ticket (as a browser), the others with the token`,
      `${counts.cuts} connection cuts (${counts.reconnects} resumed), ${sends.cut} sends cut mid-request and sent again with their key`,
      `${sends.admitted.length} sends admitted, ${unended.length} without a turn end, ${sends.unanswered} unanswered${refused === "" ? "" : `, refused: ${refused}`}`,
      `${diff.lists} client lists (${diff.events} durable events) against the store: ${diff.lost} lost, ${diff.duplicated} duplicated, ${diff.mismatched} mismatched, ${diff.gaps} gaps`,
      `all turns ended: ${end.settled ? "yes" : "NO"} (the last ${Math.round(end.drainSeconds)} s after the load ended); all clients caught up: ${end.caughtUp ? "yes" : "NO"}`,
      ...(trouble.errors === "" ? [] : [`errors from the sidecar: ${trouble.errors}`]),
      ...(trouble.failedConnects === 0 ? [] : [`${trouble.failedConnects} failed connects`]),
      ...(unended.length === 0 ? [] : [`first unended send: ${JSON.stringify(unended[0])}`]),
    ],
  };
}
