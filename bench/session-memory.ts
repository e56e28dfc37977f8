/**
 * (f) What a session holds in memory: the heap each idle open session costs, and the heap a
 * session holds after 10,000 events (turns of deltas, read live to their end, kept in a SQLite
 * store file) against that of a fresh session, in the same process. A session holds no event
 * of an ended turn, so the ratio stays near 1 whatever the length: what is left is a small
 * record per turn. Runtime only: the sessions run on an in-process backend (no OpenCode), so
 * the figures are the bridge's own. Runs alone too:
 * `npx tsx bench/session-memory.ts [--sessions N] [--events N]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { Session } from "../src/runtime/session/session.js";
import { SqliteStore } from "../src/store/sqlite-store.js";
import { collectGarbage } from "../test/support/collect-garbage.js";
import { type InProcessBackend, inProcessSession } from "../test/support/in-process-backend.js";
import { formatRatio, note } from "./stats.js";

export interface SessionMemoryOptions {
  /** Idle open sessions measured together (the heap per session is their growth / N). */
  sessions: number;
  /** Events each long session handles. */
  events: number;
  /** Long sessions measured together. */
  longSessions: number;
  /** Deltas per turn (a turn also has 7 durable events). */
  deltasPerTurn: number;
}

export interface SessionMemoryResult {
  options: SessionMemoryOptions;
  /** Heap bytes per idle open session, fresh. */
  idleBytes: number;
  /** Heap bytes per session after `events` events. */
  longBytes: number;
  /** Events each long session handled, and in how many turns. */
  handled: number;
  turns: number;
}

export async function benchSessionMemory(
  options: SessionMemoryOptions,
): Promise<SessionMemoryResult> {
  const dir = mkdtempSync(join(tmpdir(), "ocb-bench-memory-"));
  const store = SqliteStore.open(join(dir, "store.db"));
  const open: Session[] = [];
  try {
    note(`(f) warming up`);
    await longSession(inProcessSession("ses_warmup", { store }), options);

    note(`(f) ${options.sessions} idle open sessions`);
    let before = await heap();
    for (let i = 0; i < options.sessions; i++) {
      open.push(inProcessSession(`ses_idle_${i}`, { store }).session);
    }
    const idleBytes = ((await heap()) - before) / options.sessions;

    note(`(f) ${options.longSessions} sessions × ${options.events} events`);
    before = await heap();
    let handled = 0;
    let turns = 0;
    for (let i = 0; i < options.longSessions; i++) {
      const made = inProcessSession(`ses_long_${i}`, { store });
      open.push(made.session);
      ({ handled, turns } = await longSession(made, options));
    }
    const longBytes = ((await heap()) - before) / options.longSessions;
    note(`(f) done (${open.length} sessions open)`);
    return { options, idleBytes, longBytes, handled, turns };
  } finally {
    for (const session of open) await session.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Turns of deltas until the session has handled `events` events, each turn read live to its end. */
async function longSession(
  { session, backend }: { session: Session; backend: InProcessBackend },
  options: SessionMemoryOptions,
): Promise<{ handled: number; turns: number }> {
  let handled = 0;
  let turns = 0;
  while (handled < options.events) {
    const turn = await session.send(`turn ${turns}`, { delivery: "queue" });
    const reading = (async () => {
      let read = 0;
      for await (const _event of turn.events()) read++;
      return read;
    })();
    backend.step(Math.min(options.deltasPerTurn, Math.max(0, options.events - handled - 7)));
    backend.end();
    handled += await reading;
    turns++;
  }
  return { handled, turns };
}

async function heap(): Promise<number> {
  await collectGarbage();
  return process.memoryUsage().heapUsed;
}

function formatKiB(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** The figures, one line per measure. */
export function sessionMemoryLines(result: SessionMemoryResult): string[] {
  const { options } = result;
  return [
    `(f) session memory  heap per idle open session ${formatKiB(result.idleBytes)} ` +
      `(${options.sessions} sessions, in-process backend, SQLite store file)`,
    `                    after ${result.handled} events (${result.turns} turns of ` +
      `${options.deltasPerTurn} deltas) ${formatKiB(result.longBytes)} per session ` +
      `(${options.longSessions} sessions)  ratio ${formatRatio(result.longBytes / result.idleBytes)}`,
  ];
}

const runAlone =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (runAlone) {
  const { values } = parseArgs({
    options: {
      sessions: { type: "string", default: "1000" },
      events: { type: "string", default: "10000" },
    },
  });
  const positive = (name: string, text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`--${name} wants a positive integer`);
    return value;
  };
  const result = await benchSessionMemory({
    sessions: positive("sessions", values.sessions),
    events: positive("events", values.events),
    longSessions: 10,
    deltasPerTurn: 93,
  });
  process.stdout.write(`${sessionMemoryLines(result).join("\n")}\n`);
}
