/**
 * Relay cuts: a real sidecar reachable through a relay (`remote`, the real `opencode`, the
 * scripted model), a paired device following a session through the relay while turns run, and
 * the connections on either side of the relay (device↔relay, relay↔sidecar) cut at seeded
 * random moments through TCP proxies, again and again. Must hold: the device's subscription
 * holds every durable event of the session's transcript (read straight from the sidecar), once
 * each and in order; every turn sent ended once, completed; no process left.
 */
import { join } from "node:path";
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import { sleep } from "../../../src/util/abort.js";
import type { CuttingProxy } from "../../../test/support/cutting-proxy.js";
import { type Followed, followSession } from "../../../test/support/followed-session.js";
import { sendThroughCuts } from "../../../test/support/send-through-cuts.js";
import { type RelayRig, startRelayRig } from "../../relay-rig.js";
import { withProcessCount } from "../faults/scenario-run.js";
import { type SeededRandom, seededRandom } from "../faults/seeded-random.js";
import type { Scenario, ScenarioContext, ScenarioRow } from "../scenario.js";

interface RelayCutsVariant {
  /**
   * Turns at least; more (up to `MAX_TURNS_FACTOR` times as many) while cuts are still to be
   * made: how long the cuts take depends on the machine (each waits for its side to reconnect),
   * how long a turn takes does not, so a fixed count of turns could end before the cuts.
   */
  turns: number;
  /** `[[slow TOKENS DELAYMS]]` of each turn. */
  tokens: number;
  tokenMs: number;
  /** Cuts that found a connection open, to make over the turns; the pause before each. */
  cuts: number;
  gapMs: { min: number; max: number };
}

export const RELAY_CUTS = {
  full: { turns: 10, tokens: 60, tokenMs: 25, cuts: 50, gapMs: { min: 150, max: 500 } },
  short: { turns: 3, tokens: 40, tokenMs: 25, cuts: 10, gapMs: { min: 150, max: 400 } },
} as const satisfies Record<string, RelayCutsVariant>;

/** Turns sent at most, in `variant.turns`: past it, cuts not made are a finding. */
const MAX_TURNS_FACTOR = 4;

/** Bound on each wait (a turn's end through the cuts, a send): a safety net, not a speed check. */
const WAIT_MS = 120_000;
/** A send cut mid-request is sent again (same key) this often, `RESEND_MS` apart. */

type Side = "device" | "sidecar";
const OPEN_POLL_MS = 20;

/** Waits (bounded by `signal`: the turns' end) until a connection through `proxy` is open. */
async function openOn(proxy: CuttingProxy, signal: AbortSignal): Promise<void> {
  while (proxy.connections().length === 0) await sleep(OPEN_POLL_MS, signal);
}

/**
 * Cuts on either side of the relay at random moments until `cuts` found a connection or
 * `signal`, counting them in `made` as they are made.
 */
async function cutAtRandom(
  rig: RelayRig,
  variant: RelayCutsVariant,
  random: SeededRandom,
  signal: AbortSignal,
  context: ScenarioContext,
  made: Record<Side, number>,
): Promise<void> {
  const proxies = rig.cuts;
  if (proxies === undefined) throw new Error("relay-cuts needs the rig's cutting proxies");
  try {
    while (made.device + made.sidecar < variant.cuts && !signal.aborted) {
      const side = random.pick(["device", "sidecar"] as const);
      // A cut of the sidecar's side ends the device's connection too (the relay's pair is gone),
      // and the device reconnects on its client's backoff: wait for that side to be open again,
      // or the device↔relay side would rarely be cut at all; then give it the pause before the
      // cut, or each new connection would be cut before it carried anything (the device's
      // backoff then grows until the turns' bound: a test of nothing but the backoff).
      await openOn(proxies[side], signal);
      await sleep(random.between(variant.gapMs.min, variant.gapMs.max), signal);
      if (proxies[side].cut() === 0) continue;
      made[side] += 1;
      const total = made.device + made.sidecar;
      if (total % 10 === 0) context.note(`relay-cuts: ${total} cuts`);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

async function runTurnsThroughCuts(
  rig: RelayRig,
  context: ScenarioContext,
  variant: RelayCutsVariant,
): Promise<Omit<ScenarioRow, "scenario" | "peakRssBytes">> {
  const device = await rig.pairDevice("relay-cuts device");
  const { id, lastSeq } = await device.client.createSession({ title: "relay cuts" });
  const followed: Followed = followSession(device.client, id, WAIT_MS);
  const turnsOver = new AbortController();
  const cuts: Record<Side, number> = { device: 0, sidecar: 0 };
  const random = seededRandom(context.seed);
  const cutting = cutAtRandom(rig, variant, random, turnsOver.signal, context, cuts);
  const turns: string[] = [];
  const started = Date.now();
  const moreTurns = (turn: number) =>
    turn < variant.turns ||
    (cuts.device + cuts.sidecar < variant.cuts && turn < variant.turns * MAX_TURNS_FACTOR);
  try {
    for (let turn = 0; moreTurns(turn); turn++) {
      const prompt = `[[slow ${variant.tokens} ${variant.tokenMs}]] turn ${turn + 1}`;
      const turnId = await sendThroughCuts(device.client, id, prompt);
      turns.push(turnId);
      await followed.turn(turnId);
    }
  } finally {
    turnsOver.abort();
  }
  await cutting;
  const turnsMs = Date.now() - started;
  const transcript = await rig.real.client.transcript(id, { after: lastSeq });
  followed.subscription.close();
  device.close();
  const socketErrors = rig.deviceSocketErrors;
  return judge({
    ...{ variant, followed: followed.events, transcript, turns, cuts, turnsMs, context },
    socketErrors,
  });
}

function judge(run: {
  variant: RelayCutsVariant;
  followed: CanonicalEvent[];
  transcript: CanonicalEvent[];
  turns: string[];
  cuts: Record<Side, number>;
  turnsMs: number;
  context: ScenarioContext;
  /** Device socket errors the rig's listener took (each a crash of a device on bare `ws`). */
  socketErrors: number;
}): Omit<ScenarioRow, "scenario" | "peakRssBytes"> {
  const { variant, followed, transcript, turns, cuts } = run;
  // Up to the last turn's end: what the transcript holds after it, the device may not have yet.
  const lastEnd = transcript.findLast((event) => event.type === "turn.ended")?.seq ?? 0;
  const durable = (events: CanonicalEvent[]) =>
    events.filter((event) => event.durable && (event.seq ?? 0) <= lastEnd);
  const got = durable(followed);
  const want = durable(transcript);
  const gotIds = new Set(got.map((event) => event.id));
  const lost = want.filter((event) => !gotIds.has(event.id)).map((event) => event.id);
  const duplicated = got.length - gotIds.size;
  const seqs = got.map((event) => event.seq ?? 0);
  const inOrder = seqs.every((seq, index) => index === 0 || seq > (seqs[index - 1] ?? 0));
  const sameList = got.map((event) => event.id).join() === want.map((event) => event.id).join();
  const endsOf = (turnId: string, events: CanonicalEvent[]) =>
    events.filter((event) => event.type === "turn.ended" && event.turnId === turnId);
  const endedOnce = turns.filter((turnId) => {
    const seen = endsOf(turnId, followed);
    const stored = endsOf(turnId, transcript);
    const end = stored[0];
    return (
      seen.length === 1 &&
      stored.length === 1 &&
      end?.type === "turn.ended" &&
      end.data.outcome === "completed"
    );
  }).length;
  const total = cuts.device + cuts.sidecar;
  const enoughCuts = total >= variant.cuts;
  const passed =
    enoughCuts &&
    lost.length === 0 &&
    duplicated === 0 &&
    inOrder &&
    sameList &&
    endedOnce === turns.length &&
    turns.length >= variant.turns &&
    want.length > 0;
  return {
    load: `${turns.length} turns of ${variant.tokens} deltas, a device following through the relay (${want.length} durable events)`,
    faultsInjected: total,
    turnsEndedOnce: { once: endedOnce, started: turns.length },
    durableLost: lost.length,
    duplicated,
    crashes: 0,
    passed,
    notes: [
      `seed ${run.context.seed}; cuts device↔relay ${cuts.device}, relay↔sidecar ${cuts.sidecar}; turns ${(run.turnsMs / 1000).toFixed(1)} s, a cut every ${Math.round(run.turnsMs / Math.max(1, total))} ms`,
      `device socket errors ${run.socketErrors} (relay connections refused or cut during their upgrade, each survived)`,
      ...(enoughCuts
        ? []
        : [`only ${total} of ${variant.cuts} cuts in ${turns.length} turns (the most it sends)`]),
      ...(inOrder ? [] : ["the device's durable events are out of seq order"]),
      ...(sameList || lost.length > 0 || duplicated > 0
        ? []
        : ["the device's durable events differ from the transcript's"]),
      ...(lost.length === 0
        ? []
        : [`lost ×${lost.length} (first: ${lost.slice(0, 3).join("; ")})`]),
      ...(endedOnce === turns.length
        ? []
        : [`${turns.length - endedOnce} turns not ended exactly once, completed`]),
    ],
  };
}

export const relayCutsScenario: Scenario = {
  name: "relay-cuts",
  summary:
    "50 cuts on either side of a relay while a device follows 10 turns: every durable event once, in order",
  async run(context: ScenarioContext) {
    const variant = context.short ? RELAY_CUTS.short : RELAY_CUTS.full;
    context.note(
      `relay-cuts: ${variant.cuts} cuts over ${variant.turns} turns, seed ${context.seed}`,
    );
    return await withProcessCount(context, async (logger) => {
      const rig = await startRelayRig({
        label: "reliability relay-cuts",
        cutting: true,
        logger,
        storeFile: join(context.workDir, "store.db"),
      });
      try {
        context.secret(rig.real.token, "the sidecar's token");
        const password = rig.real.bridge.server.password;
        if (password !== undefined) context.secret(password, "the managed server's password");
        return await runTurnsThroughCuts(rig, context, variant);
      } finally {
        await rig.close();
      }
    });
  },
};
