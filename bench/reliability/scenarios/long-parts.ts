/**
 * Long parts: one text, one reasoning and one tool-input part of 10,000 deltas each, on both
 * serve surfaces, against the real `opencode` and the scripted model. Must hold: every delta
 * handed out before its part's end, the deltas joined exactly the ended value (while the live
 * stream stayed connected; after a reconnect, order only, and the reconnect is noted), each
 * turn ended once, no process left.
 *
 * Moved here from `npm test` (test/e2e/deltas.test.ts keeps the same checks on 1,000 deltas,
 * `LONG_PART_DELTAS_IN_TESTS`):
 * on `serve` a 10,000-delta part took 40 to 115 s on a loaded 2-core machine, almost all of it
 * waiting on OpenCode's `/api` streams (the bridge's process spent about 2 s of CPU on it),
 * against 3 to 5 s on `serve-legacy`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BackendKind } from "../../../src/backends/backend.js";
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import { Bridge } from "../../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../../src/testing/demo-model-server.js";
import { withProcessCount } from "../faults/scenario-run.js";
import {
  longPartPrompt,
  type PartKind,
  partsOf,
  partsOfKind,
  ruleBroken,
} from "../long-parts/parts.js";
import type { Scenario, ScenarioContext } from "../scenario.js";

/**
 * Deltas per part: the full run's, and the short variant's (which checks the scenario itself;
 * test/e2e/deltas.test.ts runs the same checks on 1,000, `LONG_PART_DELTAS_IN_TESTS`).
 */
export const LONG_PART_DELTAS = { full: 10_000, short: 100 } as const;

/** The legacy surface streams no tool input (its `tool.input.ended` is the parsed input). */
const KINDS: Record<"serve" | "serve-legacy", readonly PartKind[]> = {
  serve: ["text", "reasoning", "tool.input"],
  "serve-legacy": ["text", "reasoning"],
};

interface PartRun {
  what: string;
  endedOnce: boolean;
  reconnects: number;
  problems: string[];
  seconds: number;
}

async function runPart(bridge: Bridge, kind: PartKind, count: number): Promise<PartRun> {
  const what = `${bridge.backend} ${kind}`;
  const session = await bridge.createSession({ title: `long ${kind}` });
  const started = Date.now();
  try {
    const turn = await session.send(longPartPrompt(kind, count), { delivery: "queue" });
    const events: CanonicalEvent[] = [];
    for await (const event of turn.events()) events.push(event);
    const result = await turn.done();
    const parts = partsOfKind(partsOf(events), kind);
    const reconnects = session.stats().deltas.liveReconnects;
    // After a reconnect deltas were lost upstream: only their order is the bridge's to keep.
    const broken = [...parts].flatMap(([key, part]) =>
      ruleBroken(key, part).filter(
        (problem) => reconnects === 0 || problem.includes("after its end"),
      ),
    );
    const problems = [
      ...(result.outcome === "completed" ? [] : [`the turn ended ${result.outcome}`]),
      ...(parts.size === 0 ? [`no ${kind} part`] : []),
      ...broken,
    ].map((problem) => `${what}: ${problem}`);
    const endedOnce = events.filter((event) => event.type === "turn.ended").length === 1;
    return { what, endedOnce, reconnects, problems, seconds: (Date.now() - started) / 1000 };
  } finally {
    await session.close();
  }
}

export const longPartsScenario: Scenario = {
  name: "long-parts",
  summary:
    "text, reasoning and tool-input parts of 10,000 deltas on both serve surfaces: every delta, before its end",
  async run(context: ScenarioContext) {
    const count = context.short ? LONG_PART_DELTAS.short : LONG_PART_DELTAS.full;
    context.note(`long-parts: ${count} deltas per part`);
    return await withProcessCount(context, async (logger) => {
      const runs: PartRun[] = [];
      for (const backend of ["serve", "serve-legacy"] as const satisfies readonly BackendKind[]) {
        const directory = mkdtempSync(join(context.workDir, `${backend}-`));
        const bridge = await Bridge.start({
          directory,
          modelServer: demoModelServer,
          backend,
          logger,
        });
        try {
          if (bridge.server.password !== undefined) context.secret(bridge.server.password);
          for (const kind of KINDS[backend]) {
            runs.push(await runPart(bridge, kind, count));
            context.sampleRss();
          }
        } finally {
          await bridge.close();
          rmSync(directory, { recursive: true, force: true });
        }
      }
      const problems = runs.flatMap((run) => run.problems);
      const once = runs.filter((run) => run.endedOnce).length;
      return {
        load: `${runs.length} parts × ${count.toLocaleString("en")} deltas`,
        faultsInjected: 0,
        turnsEndedOnce: { once, started: runs.length },
        crashes: 0,
        passed: problems.length === 0 && once === runs.length,
        notes: [
          `per part: ${runs.map((run) => `${run.what} ${run.seconds.toFixed(1)} s${run.reconnects > 0 ? ` (live stream reconnected ${run.reconnects}×: order checked only)` : ""}`).join("; ")}`,
          ...problems,
        ],
      };
    });
  },
};
