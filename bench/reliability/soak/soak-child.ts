/**
 * The soak's bridge under test, in a process of its own so that the memory measured is the
 * bridge's and not the suite's: a real `Bridge` with a managed `opencode serve` on the scripted
 * model (served by the parent's model process), `sessions` sessions each running turns back to
 * back for `durationMs`. It reports on stdout (JSON lines, `reports.ts`) a sample every
 * `sampleEveryMs` (RSS, heap after a full GC, fds, turns so far) and, after `bridge.close()`,
 * the end: fds and active handles before the start and after the close, turns, and the
 * store's check for lost or duplicated durable events. Started by `run-soak.ts`.
 *
 * The bridge is given a store whose page cache is already full (`warm-store.ts`): the RSS
 * slope is that of a long-lived bridge, not of SQLite's 32 MiB cache filling up for an hour.
 */

import { once } from "node:events";
import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import { Bridge } from "../../../src/runtime/bridge/bridge.js";
import type { Session } from "../../../src/runtime/session/session.js";
import { lineLogger } from "../../../src/sidecar/log-lines.js";
import { SqliteStore } from "../../../src/store/sqlite-store.js";
import { demoProviderConfig } from "../../../src/testing/demo-provider.js";
import { scheduleHeapSnapshots } from "./heap-snapshots.js";
import { SOAK_SETTINGS_ENV, type SoakReport, SoakSettingsSchema } from "./reports.js";
import {
  activeCount,
  type HeldResources,
  heldResources,
  memoryNow,
  peakRssBytes,
} from "./resources.js";
import { storeCheck } from "./store-check.js";
import { turnPrompt } from "./turn-prompts.js";
import { warmStore } from "./warm-store.js";

const settings = SoakSettingsSchema.parse(JSON.parse(process.env[SOAK_SETTINGS_ENV] ?? "null"));
const report = (line: SoakReport): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

/** How long the close's sockets and timers get to wind down before the count after close. */
const SETTLE_BOUND_MS = 5_000;

const project = join(settings.workDir, "project");
mkdirSync(project, { recursive: true });
const storePath = join(settings.workDir, "soak.db");
const log = createWriteStream(join(settings.workDir, "bridge.log"));
const logger = lineLogger("json", (line) => log.write(line));
await once(log, "open"); // its fd counts in the start figure, as it stays open to the end
const demo = demoProviderConfig(settings.modelUrl);
demo.provider.demo.options.apiKey = settings.apiKey;

await memoryNow();
const before = heldResources();
// Opened after the start figure, closed before the figure after close: its fds count in neither.
const warmed = await warmStore(storePath);
const bridge = await Bridge.start({
  directory: project,
  store: warmed,
  config: { ...demo },
  server: { password: settings.password },
  permissions: "allow-all",
  logger,
  // The catalog (some 8,000 models) took longer than the default 30 s at load 10-14 on 2 cores;
  // the run's own bound on the child's start is 120 s (run-soak.ts).
  modelReadyTimeoutMs: 100_000,
});
const tally = { started: 0, endedOnce: 0, outcomes: {} as Record<string, number> };
const errors: string[] = [];
const sessionIds: string[] = [];
let running: HeldResources | undefined;

/** One session's turns, back to back, until the deadline. */
async function runTurns(session: Session, index: number, deadline: number): Promise<void> {
  for (let turnIndex = 0; Date.now() < deadline; turnIndex++) {
    tally.started++;
    try {
      const turn = await session.send(turnPrompt(index, turnIndex), { delivery: "queue" });
      const ends: CanonicalEvent[] = [];
      for await (const event of turn.events()) if (event.type === "turn.ended") ends.push(event);
      const last = ends.at(-1);
      if (ends.length === 1) tally.endedOnce++;
      const outcome = last?.type === "turn.ended" ? last.data.outcome : "no end";
      tally.outcomes[outcome] = (tally.outcomes[outcome] ?? 0) + 1;
    } catch (error) {
      if (errors.length < 5) errors.push(error instanceof Error ? error.message : String(error));
    }
    if (index === 0 && turnIndex === 2) running ??= heldResources();
  }
}

const startedAt = Date.now();
const deadline = startedAt + settings.durationMs;
async function sample(): Promise<void> {
  const memory = await memoryNow();
  report({
    kind: "sample",
    atMs: Date.now() - startedAt,
    ...memory,
    fds: heldResources().fds,
    turns: tally.endedOnce,
  });
}
const sampler = setInterval(() => void sample(), settings.sampleEveryMs);
// Off by default; stderr, as stdout carries the reports only.
const cancelSnapshots = scheduleHeapSnapshots(process.env, (line) =>
  process.stderr.write(`${line}\n`),
);
try {
  const sessions = await Promise.all(
    Array.from({ length: settings.sessions }, (_, i) =>
      bridge.createSession({ title: `soak ${i}` }),
    ),
  );
  sessionIds.push(...sessions.map((session) => session.id));
  await Promise.all(sessions.map((session, i) => runTurns(session, i, deadline)));
} finally {
  clearInterval(sampler);
  cancelSnapshots();
  await sample();
  await bridge.close();
  await warmed.close(); // the bridge's, but not owned by it: given, not opened by it
}

/** Waits until the close's sockets and timers are gone (at most SETTLE_BOUND_MS). */
async function settled(): Promise<HeldResources> {
  const bound = Date.now() + SETTLE_BOUND_MS;
  for (;;) {
    const now = heldResources();
    const back = now.fds <= before.fds && activeCount(now) <= activeCount(before);
    if (back || Date.now() > bound) return now;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const afterClose = await settled();
const store = SqliteStore.open(storePath);
const check = await storeCheck(store, sessionIds);
await store.close();
report({
  kind: "end",
  before,
  running: running ?? before,
  afterClose,
  turns: tally,
  ...check,
  peakRssBytes: peakRssBytes(),
  errors,
});
log.end();
