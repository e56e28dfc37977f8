/**
 * (l1) The latency a delta gains through the relay: one session of a real sidecar followed by
 * two clients in this process (one clock), one straight to the sidecar's WebSocket, one a paired
 * device through the relay (the Noise-encrypted tunnel, two more WebSocket hops). The turns are
 * sent in process, as in (g); per delta (matched by its event id): arrival at each client − the
 * time the in-process Turn yielded it, and relayed − direct, the figure of the goal.
 *
 * Everything runs on this process's one event loop (the relay, the sidecar, both clients; only
 * OpenCode and the model are other processes): a delta goes from the sidecar's socket to the
 * tunnel's (the hop the direct client makes too), then two more loopback hops (the tunnel's
 * end to the relay, the relay to the device), each waiting for its turn of that loop. The baseline, in the same run: each delta, as the direct
 * client receives it, sent on over two bare `ws` hops chained in this process (nothing else):
 * what two more loopback hops cost on this loop and machine. Beside it: the loop's delay while
 * the turns run, and the encryption's cost per frame alone (bench/noise-frame-cost.ts).
 */
import { availableParallelism, loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { type FrameCost, noiseFrameCost } from "./noise-frame-cost.js";
import type { Device, RelayRig } from "./relay-rig.js";
import { bareHop, receiveDeltas, runTurn, waitUntil } from "./sidecar.js";
import { note, withTimeout } from "./stats.js";

export interface RelayLatencyOptions {
  turns: number;
  /** `[[slow TOKENS DELAYMS]]`: deltas per turn and the model's pause before each. */
  tokens: number;
  delayMs: number;
  timeoutMs: number;
}

export interface RelayLatencyResult {
  /** Per delta, ms after the in-process Turn yielded it: at the direct client, at the device. */
  directMs: number[];
  relayedMs: number[];
  /** Per delta both received: device − direct client. */
  addedMs: number[];
  /** Per delta: the end of two bare hops chained from the direct client − the direct client. */
  bareHopsMs: number[];
  /** Per delta: device − the end of the bare hops (what the relay's path adds over the floor). */
  overBareMs: number[];
  turnDeltas: number;
  directDeltas: number;
  relayedDeltas: number;
  load: { average: number; cores: number };
  /** The event loop's delay while the measured turns ran, ms (what every hop waits for). */
  loopDelayMs: { p50: number; p99: number; max: number };
  /** One encrypt + decrypt of a delta-sized frame, alone. */
  noise: FrameCost;
}

/** The relayed path's hops beyond the direct one: the tunnel's end → relay → device. */
const EXTRA_HOPS = 2;

/** A tunnelled delta's frame is a few hundred bytes: its event's JSON and the tunnel's header. */
const DELTA_FRAME_BYTES = 512;

export async function benchRelayLatency(
  rig: RelayRig,
  device: Device,
  options: RelayLatencyOptions,
): Promise<RelayLatencyResult> {
  const info = await rig.real.client.createSession({ title: "bench relay latency" });
  // The bridge hands out the session it follows for the sidecar: the same object.
  const session = await rig.real.bridge.openSession(info.id);
  await runTurn(session, "[[reply warm]]", options.timeoutMs);
  const turnAt = new Map<string, number>();
  const directAt = new Map<string, number>();
  const relayedAt = new Map<string, number>();
  const bareAt = new Map<string, number>();
  const hops = await hopChain(EXTRA_HOPS, (id) => {
    if (!bareAt.has(id)) bareAt.set(id, performance.now());
  });
  const direct = rig.real.client.subscribe(info.id, { after: session.lastSeq });
  const relayed = device.client.subscribe(info.id, { after: session.lastSeq });
  const receiving = [receiveDeltas(direct, directAt, hops.send), receiveDeltas(relayed, relayedAt)];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  try {
    await withTimeout(
      Promise.all([direct.caughtUp, relayed.caughtUp]),
      options.timeoutMs,
      "the clients' catch-up",
    );
    // One more unmeasured turn: the tunnel's socket and both clients' code paths warm.
    await runTurn(session, `[[slow 20 ${options.delayMs}]]`, options.timeoutMs);
    loop.enable();
    for (let turn = 0; turn < options.turns; turn++) {
      const prompt = `[[slow ${options.tokens} ${options.delayMs}]]`;
      await runTurn(session, prompt, options.timeoutMs, turnAt);
      note(`(l1) turn ${turn + 1}/${options.turns}: ${turnAt.size} deltas`);
    }
    // The clients may still be a few messages behind the Turn.
    const behind = () =>
      [...turnAt.keys()].some((id) => !directAt.has(id) || !relayedAt.has(id) || !bareAt.has(id));
    await waitUntil(() => !behind(), 2_000);
  } finally {
    loop.disable();
    direct.close();
    relayed.close();
    await hops.close();
    await withTimeout(Promise.all(receiving), options.timeoutMs, "the subscriptions' end");
  }
  const load = { average: loadavg()[0] ?? Number.NaN, cores: availableParallelism() };
  const directMs: number[] = [];
  const relayedMs: number[] = [];
  const addedMs: number[] = [];
  const bareHopsMs: number[] = [];
  const overBareMs: number[] = [];
  for (const [id, at] of turnAt) {
    const viaDirect = directAt.get(id);
    const viaRelay = relayedAt.get(id);
    if (viaDirect !== undefined) directMs.push(viaDirect - at);
    if (viaRelay !== undefined) relayedMs.push(viaRelay - at);
    if (viaDirect !== undefined && viaRelay !== undefined) addedMs.push(viaRelay - viaDirect);
    const viaBare = bareAt.get(id);
    if (viaDirect !== undefined && viaBare !== undefined) bareHopsMs.push(viaBare - viaDirect);
    if (viaRelay !== undefined && viaBare !== undefined) overBareMs.push(viaRelay - viaBare);
  }
  const measured = (at: Map<string, number>) => [...at.keys()].filter((id) => turnAt.has(id));
  return {
    directMs,
    relayedMs,
    addedMs,
    bareHopsMs,
    overBareMs,
    turnDeltas: turnAt.size,
    directDeltas: measured(directAt).length,
    relayedDeltas: measured(relayedAt).length,
    load,
    loopDelayMs: {
      p50: loop.percentile(50) / 1e6,
      p99: loop.percentile(99) / 1e6,
      max: loop.max / 1e6,
    },
    noise: noiseFrameCost(DELTA_FRAME_BYTES, 5_000),
  };
}

/** `count` bare WebSocket hops in a row, in this process: `send` goes in, `received` gets it out. */
async function hopChain(
  count: number,
  received: (id: string) => void,
): Promise<{ send: (id: string) => void; close: () => Promise<void> }> {
  const chain: Awaited<ReturnType<typeof bareHop>>[] = [];
  let next = received;
  try {
    for (let hop = 0; hop < count; hop++) {
      const made = await bareHop(next);
      chain.unshift(made);
      next = made.send;
    }
  } catch (error) {
    for (const hop of chain) await hop.close();
    throw error;
  }
  return {
    send: next,
    close: async () => {
      for (const hop of chain) await hop.close();
    },
  };
}
