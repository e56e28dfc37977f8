/**
 * Cuts the bridge's upstream connections, through the cutting proxy, on a seeded random
 * schedule: the live event stream (`/api/event`), the session's durable stream
 * (`/api/session/:id/event`), both at once with whatever else is open, or one of the two in
 * the middle of a frame's bytes. A stream is cut only once it delivered a message on its
 * current connection: a connection cut before that would only grow the reader's backoff, and
 * the cut would test nothing the previous one did not.
 */

import { sleep } from "../../../src/util/abort.js";
import { assertNever } from "../../../src/util/assert-never.js";
import type { CuttingProxy, ProxiedConnection } from "../../../test/support/cutting-proxy.js";
import type { SeededRandom } from "../faults/seeded-random.js";

export const CUT_KINDS = ["live", "durable", "all", "live-mid-frame", "durable-mid-frame"] as const;
export type CutKind = (typeof CUT_KINDS)[number];

export interface CutSchedule {
  /** Cuts to make. */
  cuts: number;
  /** The random pause before each cut, from the previous one (ms). */
  gapMs: { min: number; max: number };
}

export interface CutTally {
  /** Cuts made, by kind (a mid-frame cut that found no frame in its bound became a plain one). */
  byKind: Record<CutKind, number>;
  total: number;
}

/** A waiting mid-frame cut gives up after this long and cuts the connection as it is. */
const MID_FRAME_BOUND_MS = 2_000;
const POLL_MS = 20;

type StreamName = "live" | "durable";

function streamOf(connection: ProxiedConnection): StreamName | undefined {
  const path = connection.path ?? "";
  if (path.startsWith("/api/event")) return "live";
  if (/^\/api\/session\/[^/]+\/event/.test(path)) return "durable";
  return undefined;
}

/** The connection of each stream that can be cut now (open, and delivered a message). */
function cuttable(proxy: CuttingProxy): Map<StreamName, ProxiedConnection> {
  const found = new Map<StreamName, ProxiedConnection>();
  for (const connection of proxy.connections()) {
    const stream = streamOf(connection);
    if (stream !== undefined && connection.framesDelivered > 0) found.set(stream, connection);
  }
  return found;
}

function kindsFor(streams: Map<StreamName, ProxiedConnection>): CutKind[] {
  return CUT_KINDS.filter((kind) => {
    if (kind === "all") return streams.size === 2;
    return streams.has(kind.startsWith("live") ? "live" : "durable");
  });
}

/**
 * Cuts on `schedule` until it made its cuts or `signal` fires (the turn ended); resolves with
 * what it did.
 */
export async function cutOnSchedule(
  proxy: CuttingProxy,
  schedule: CutSchedule,
  random: SeededRandom,
  signal: AbortSignal,
  onCut: (kind: CutKind, total: number) => void = () => {},
): Promise<CutTally> {
  const tally: CutTally = {
    byKind: Object.fromEntries(CUT_KINDS.map((kind) => [kind, 0])) as Record<CutKind, number>,
    total: 0,
  };
  try {
    while (tally.total < schedule.cuts && !signal.aborted) {
      await sleep(random.between(schedule.gapMs.min, schedule.gapMs.max), signal);
      let streams = cuttable(proxy);
      while (streams.size === 0) {
        await sleep(POLL_MS, signal);
        streams = cuttable(proxy);
      }
      const kind = random.pick(kindsFor(streams));
      const made = await cut(proxy, kind, streams, random, signal);
      if (made === undefined) continue;
      tally.byKind[made] += 1;
      tally.total += 1;
      onCut(made, tally.total);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  return tally;
}

/** Makes one cut of `kind`; the kind it turned out to be, or undefined when nothing was cut. */
async function cut(
  proxy: CuttingProxy,
  kind: CutKind,
  streams: Map<StreamName, ProxiedConnection>,
  random: SeededRandom,
  signal: AbortSignal,
): Promise<CutKind | undefined> {
  const target = (name: StreamName): number => {
    const connection = streams.get(name);
    if (connection === undefined) throw new Error(`no ${name} connection to cut`);
    return connection.id;
  };
  switch (kind) {
    case "all":
      return proxy.cut() > 0 ? kind : undefined;
    case "live":
    case "durable":
      return (await proxy.cutConnection(target(kind))) ? kind : undefined;
    case "live-mid-frame":
    case "durable-mid-frame": {
      const id = target(kind === "live-mid-frame" ? "live" : "durable");
      const midFrame = proxy.cutConnection(id, { midFrame: true, random: random.next });
      const done = new AbortController();
      const bound = sleep(MID_FRAME_BOUND_MS, AbortSignal.any([signal, done.signal])).then(
        () => "bound" as const,
        () => "bound" as const,
      );
      const first = await Promise.race([midFrame, bound]);
      done.abort();
      if (first !== "bound") return first ? kind : undefined;
      // No frame came in time (the stream is quiet): cut it as it is.
      const plain = kind === "live-mid-frame" ? "live" : "durable";
      return (await proxy.cutConnection(id)) ? plain : undefined;
    }
    default:
      return assertNever(kind);
  }
}
