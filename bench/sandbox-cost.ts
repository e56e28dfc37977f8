/**
 * (v) What the sandbox costs: a short tool turn (`bash` runs `echo`) on a bridge whose OpenCode
 * runs in bubblewrap (`workspace-write`, and with the network of commands off), against the
 * same turn on a bridge without, in the same run, turns alternating between the bridges so
 * that the machine's noise falls on both; and the start of `opencode serve` with and without.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bridge } from "../src/runtime/bridge/bridge.js";
import type { Session } from "../src/runtime/session/session.js";
import type { SandboxOptions } from "../src/server/sandbox/sandbox-options.js";
import { startOpencode } from "../src/server/start-opencode.js";
import { demoModelServer } from "../src/testing/demo-model-server.js";
import { recordGoal } from "./goals.js";
import { formatMs, formatRatio, median } from "./stats.js";

export interface SandboxCostResult {
  turns: number;
  starts: number;
  /** Median ms of a tool turn, by setup. */
  turnMs: { off: number; workspace: number; offline: number };
  /** Median ms from spawn to a healthy `opencode serve`. */
  startMs: { off: number; workspace: number };
}

const SETUPS: Record<"off" | "workspace" | "offline", SandboxOptions | undefined> = {
  off: undefined,
  workspace: { mode: "workspace-write" },
  offline: { mode: "workspace-write", network: "off" },
};

const TOOL_TURN = '[[tool bash {"command":"echo sandboxed"}]] [[then done]]';

async function timedTurn(session: Session): Promise<number> {
  const started = performance.now();
  const turn = await session.send(TOOL_TURN, { delivery: "queue" });
  const result = await turn.done();
  if (result.outcome !== "completed") throw new Error(`a bench turn ended ${result.outcome}`);
  return performance.now() - started;
}

export async function benchSandboxCost(options: {
  turns: number;
  starts: number;
}): Promise<SandboxCostResult> {
  const directory = mkdtempSync(join(tmpdir(), "ocb-bench-sandbox-"));
  const bridges: Bridge[] = [];
  try {
    const sessions = {} as Record<keyof typeof SETUPS, Session>;
    for (const [name, sandbox] of Object.entries(SETUPS) as [
      keyof typeof SETUPS,
      SandboxOptions | undefined,
    ][]) {
      const bridge = await Bridge.start({
        directory,
        modelServer: demoModelServer,
        ...(sandbox === undefined ? {} : { server: { sandbox } }),
      });
      bridges.push(bridge);
      sessions[name] = await bridge.createSession({ title: `bench (v) ${name}` });
      await timedTurn(sessions[name]); // warm-up: the first turn loads the model catalog
    }
    const times = { off: [] as number[], workspace: [] as number[], offline: [] as number[] };
    for (let turn = 0; turn < options.turns; turn++) {
      for (const name of Object.keys(times) as (keyof typeof times)[]) {
        times[name].push(await timedTurn(sessions[name]));
      }
    }
    await Promise.all(bridges.splice(0).map((bridge) => bridge.close()));
    const starts = { off: [] as number[], workspace: [] as number[] };
    for (let run = 0; run < options.starts; run++) {
      for (const name of Object.keys(starts) as (keyof typeof starts)[]) {
        const started = performance.now();
        const server = await startOpencode({
          directory,
          ...(name === "off" ? {} : { sandbox: "workspace-write" as const }),
        });
        starts[name].push(performance.now() - started);
        await server.close();
      }
    }
    return {
      turns: options.turns,
      starts: options.starts,
      turnMs: {
        off: median(times.off),
        workspace: median(times.workspace),
        offline: median(times.offline),
      },
      startMs: { off: median(starts.off), workspace: median(starts.workspace) },
    };
  } finally {
    await Promise.all(bridges.map((bridge) => bridge.close()));
    rmSync(directory, { recursive: true, force: true });
  }
}

export function sandboxCostLines(result: SandboxCostResult): string[] {
  const { turnMs, startMs } = result;
  const lines = [
    `(v) the sandbox's cost, medians of ${result.turns} tool turns and ${result.starts} server starts per setup, alternating:`,
  ];
  for (const name of ["workspace", "offline"] as const) {
    const ratio = turnMs[name] / turnMs.off;
    const met = recordGoal({
      figure: "(v)",
      what: `tool turn in the sandbox (${name === "workspace" ? "workspace-write" : "workspace-write, network off"}) against none`,
      measured: formatRatio(ratio),
      goal: "≤ 1.05x",
      met: ratio <= 1.05,
    });
    lines.push(
      `    tool turn, ${name}: ${formatMs(turnMs[name])} against ${formatMs(turnMs.off)} without: ${formatRatio(ratio)} (goal ≤ 1.05x: ${met})`,
    );
  }
  const extra = startMs.workspace - startMs.off;
  const met = recordGoal({
    figure: "(v)",
    what: "server start in the sandbox, more than without",
    measured: formatMs(extra),
    goal: "≤ +100 ms",
    met: extra <= 100,
  });
  lines.push(
    `    server start: ${formatMs(startMs.workspace)} against ${formatMs(startMs.off)} without: ${extra >= 0 ? "+" : ""}${formatMs(extra)} (goal ≤ +100 ms: ${met})`,
  );
  return lines;
}
