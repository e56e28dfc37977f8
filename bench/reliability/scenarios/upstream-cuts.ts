/**
 * Upstream cuts: one long turn (many tool steps, then a long paced reply) while the bridge's
 * upstream connections are cut on a seeded random schedule through a TCP proxy: the live event
 * stream, the session's durable stream, both (with whatever else is open), and either in the
 * middle of a frame. Must hold: no durable event lost or stored twice (checked against the
 * server's own log, read directly), seqs dense, ids unique, the text exact three ways (deltas
 * joined, the part's end, the result), the turn ended exactly once, no process left.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import {
  type BridgeBehindProxy,
  startBridgeBehindProxy,
} from "../../../test/support/bridge-behind-proxy.js";
import { withProcessCount } from "../faults/scenario-run.js";
import { seededRandom } from "../faults/seeded-random.js";
import type { Scenario, ScenarioContext, ScenarioRow } from "../scenario.js";
import { checkDurable } from "../upstream/durable-check.js";
import { expectedDurableKeys } from "../upstream/native-log.js";
import { CUT_KINDS, type CutSchedule, cutOnSchedule } from "../upstream/stream-cutter.js";
import { endsOf, turnText } from "../upstream/turn-text.js";

interface LongTurn {
  /** Tool steps before the reply: durable events on both streams, paced by the model's round trips. */
  toolSteps: number;
  /** The reply's tokens, one per chunk, `tokenMs` apart. */
  tokens: number;
  tokenMs: number;
}

/** The 100 cuts in a turn long enough for them on an idle machine (run 2 of 400 chunks fit only 87); the short variant's 10. */
export const UPSTREAM_CUTS = {
  full: {
    schedule: { cuts: 100, gapMs: { min: 150, max: 650 } },
    turn: { toolSteps: 80, tokens: 800, tokenMs: 40 },
  },
  short: {
    schedule: { cuts: 10, gapMs: { min: 100, max: 400 } },
    turn: { toolSteps: 6, tokens: 120, tokenMs: 40 },
  },
} as const satisfies Record<string, { schedule: CutSchedule; turn: LongTurn }>;

/** What the scripted model answers `[[slow N]]` with. */
function slowReply(tokens: number): string {
  return Array.from({ length: tokens }, (_, index) => `tok${index + 1}`).join(" ");
}

function prompt(turn: LongTurn, file: string): string {
  const read = `[[tool read ${JSON.stringify({ path: file })}]]`;
  return `${Array(turn.toolSteps).fill(read).join(" ")} [[slow ${turn.tokens} ${turn.tokenMs}]]`;
}

/** Where `got` leaves `expected`, with a little of each from there. */
function whereItDiffers(got: string, expected: string): string {
  let at = 0;
  while (at < got.length && got[at] === expected[at]) at++;
  const near = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 20), at + 30));
  return `${got.length} of ${expected.length} chars, from char ${at}: got ${near(got)}, want ${near(expected)}`;
}

const first = (label: string, items: readonly string[]): string[] =>
  items.length === 0 ? [] : [`${label} ×${items.length} (first: ${items.slice(0, 3).join("; ")})`];

async function runLongTurn(
  setup: BridgeBehindProxy,
  context: ScenarioContext,
  variant: (typeof UPSTREAM_CUTS)["full" | "short"],
): Promise<Omit<ScenarioRow, "scenario" | "peakRssBytes">> {
  const file = join(setup.real.directory, "notes.txt");
  writeFileSync(file, "a file the long turn reads, step after step\n");
  const expectedText = slowReply(variant.turn.tokens);
  const session = await setup.bridge.createSession({ title: "upstream cuts" });
  const turn = await session.send(prompt(variant.turn, file), { delivery: "queue" });
  const started = Date.now();
  const turnOver = new AbortController();
  const cutting = cutOnSchedule(
    setup.proxy,
    variant.schedule,
    seededRandom(context.seed),
    turnOver.signal,
    (kind, total) => {
      if (total % 10 === 0) context.note(`upstream-cuts: ${total} cuts (last ${kind})`);
    },
  );
  const live: CanonicalEvent[] = [];
  try {
    for await (const event of turn.events()) live.push(event);
  } finally {
    turnOver.abort();
  }
  const tally = await cutting;
  const turnMs = Date.now() - started;
  const result = await turn.done();
  const transcript = await session.transcript();
  const expected = await expectedDurableKeys(setup.real.client, session.id, setup.real.directory);
  await session.close();

  const durable = checkDurable(transcript, expected.keys);
  const text = turnText(live, transcript);
  const liveIds = new Set(live.map((event) => event.id));
  const storedEnds = endsOf(transcript, turn.id).length;
  const seenEnds = endsOf(live, turn.id).length;
  const textProblems = [
    ...(result.outcome === "completed" ? [] : [`the turn ended ${result.outcome}`]),
    ...(result.text === expectedText ? [] : ["the result's text differs from the reply"]),
    ...(text.ended.length === 1 && text.ended[0] === expectedText
      ? []
      : [`the stored text part ends differ (${text.ended.length} ends)`]),
    ...(text.deltas.length === 1 && text.deltas[0] === expectedText
      ? []
      : [
          `the deltas joined differ (${text.deltas.length} parts; ${whereItDiffers(text.deltas.join(""), expectedText)})`,
        ]),
  ];
  const endedOnce = storedEnds === 1 && seenEnds === 1;
  const repeatedLiveIds = live.length - liveIds.size;
  const enoughCuts = tally.total >= variant.schedule.cuts;
  const byKind = CUT_KINDS.map((kind) => `${kind} ${tally.byKind[kind]}`).join(", ");
  return {
    load: `1 turn: ${variant.turn.toolSteps} tool steps + a ${variant.turn.tokens}-chunk reply (${durable.durableEvents} durable events)`,
    faultsInjected: tally.total,
    turnsEndedOnce: { once: endedOnce ? 1 : 0, started: 1 },
    durableLost: durable.lost.length,
    duplicated: durable.duplicated.length + durable.repeatedIds.length + repeatedLiveIds,
    crashes: 0,
    passed:
      enoughCuts &&
      endedOnce &&
      textProblems.length === 0 &&
      durable.lost.length === 0 &&
      durable.duplicated.length === 0 &&
      durable.seqProblems.length === 0 &&
      durable.repeatedIds.length === 0 &&
      repeatedLiveIds === 0 &&
      expected.keys.length > 0,
    notes: [
      `seed ${context.seed}; cuts ${byKind}; turn ${(turnMs / 1000).toFixed(1)} s, a cut every ${Math.round(turnMs / Math.max(1, tally.total))} ms`,
      `native log ${expected.nativeEvents} durable events (last seq ${expected.lastSeq}) → ${expected.keys.length} canonical; stored ${durable.durableEvents}; ${live.length} events read from the turn`,
      ...(enoughCuts
        ? []
        : [`only ${tally.total} of ${variant.schedule.cuts} cuts before the turn ended`]),
      ...(endedOnce ? [] : [`turn.ended stored ${storedEnds}×, read ${seenEnds}×`]),
      ...textProblems,
      ...first("lost", durable.lost),
      ...first("stored twice or unexpected", durable.duplicated),
      ...first("seq problems", durable.seqProblems),
      ...first("repeated ids", durable.repeatedIds),
    ],
  };
}

export const upstreamCutsScenario: Scenario = {
  name: "upstream-cuts",
  summary:
    "100 cuts of the upstream connections during one long turn: 0 lost, 0 duplicated, text exact",
  async run(context: ScenarioContext) {
    const variant = context.short ? UPSTREAM_CUTS.short : UPSTREAM_CUTS.full;
    context.note(`upstream-cuts: ${variant.schedule.cuts} cuts, seed ${context.seed}`);
    return await withProcessCount(context, async (logger) => {
      const setup = await startBridgeBehindProxy({
        store: join(context.workDir, "store.db"),
        logger,
      });
      try {
        if (setup.real.server.password !== undefined) context.secret(setup.real.server.password);
        return await runLongTurn(setup, context, variant);
      } finally {
        await setup.close();
      }
    });
  },
};
