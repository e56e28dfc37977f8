/**
 * End to end: the network drops mid-turn, several times. A proxy the test controls cuts the
 * live and the durable connections; the bridge reconnects, resumes the durable stream from its
 * last seq, and ends with the same durable events as an uncut run: none lost, none twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge.js";
import { type CuttingProxy, startCuttingProxy } from "../support/cutting-proxy.js";
import { type RealServer, startRealServer } from "../support/real-server.js";

let real: RealServer;
let proxy: CuttingProxy;
let bridge: Bridge;

beforeAll(async () => {
  real = await startRealServer();
  proxy = await startCuttingProxy(real.server.url);
  bridge = await Bridge.start({
    directory: real.directory,
    model: { providerID: "demo", modelID: "demo-1" },
    attach: { url: proxy.url, ...(real.server.password ? { password: real.server.password } : {}) },
  });
});
afterAll(async () => {
  await bridge?.close();
  await proxy?.close();
  await real?.close();
});

const PROMPT = "[[slow 30 60]]";
const TEXT = Array.from({ length: 30 }, (_, index) => `tok${index + 1}`).join(" ");

/** The durable events without what differs between runs (ids, times, seq origins). */
function comparable(events: CanonicalEvent[]): unknown[] {
  const ids = new Map<string, string>();
  const rename = (text: string) =>
    text.replace(/\b(ses|msg|evt|call|turn_msg)_[A-Za-z0-9]+/g, (id) => {
      if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
      return ids.get(id) ?? id;
    });
  return events.map((event) =>
    JSON.parse(rename(JSON.stringify({ type: event.type, data: event.data }))),
  );
}

async function runTurn(
  cutTimes: number,
): Promise<{ events: CanonicalEvent[]; text: string; cuts: number }> {
  const session = await bridge.createSession({ title: `resume ${cutTimes}` });
  try {
    const turn = await session.send(PROMPT, { delivery: "queue" });
    let deltas = 0;
    let cuts = 0;
    for await (const event of turn.events()) {
      // Cut every few deltas while the text streams, until enough cuts happened.
      if (event.type === "text.delta" && cuts < cutTimes && ++deltas % 4 === 0) {
        cuts += proxy.cut() > 0 ? 1 : 0;
      }
    }
    const result = await turn.done();
    return { events: session.transcript(), text: result.text, cuts };
  } finally {
    await session.close();
  }
}

describe("resume after dropped connections", () => {
  it("keeps every durable event exactly once and the right text", async () => {
    const uncut = await runTurn(0);
    const cut = await runTurn(3);
    expect(cut.cuts).toBe(3);
    expect(uncut.text).toBe(TEXT);
    expect(cut.text).toBe(TEXT);
    expect(comparable(cut.events)).toEqual(comparable(uncut.events));
    const seqs = cut.events.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  });
});
