/**
 * End to end: the network drops mid-turn, several times. A proxy the test controls cuts the
 * live and the durable connections; the bridge reconnects, resumes the durable stream from its
 * last seq, and ends with the same durable events as an uncut run: none lost, none twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { type BridgeBehindProxy, startBridgeBehindProxy } from "../support/bridge-behind-proxy.js";
import { comparableEvents } from "../support/comparable-events.js";

let setup: BridgeBehindProxy;
beforeAll(async () => {
  setup = await startBridgeBehindProxy();
});
afterAll(() => setup?.close());

const TOKENS = 60;
const PROMPT = `[[slow ${TOKENS} 60]]`;
const TEXT = Array.from({ length: TOKENS }, (_, index) => `tok${index + 1}`).join(" ");
/** Between two tries to cut, once the text streams (a try while the bridge reconnects cuts nothing). */
const CUT_EVERY_MS = 400;

async function runTurn(
  cutTimes: number,
): Promise<{ events: CanonicalEvent[]; text: string; cuts: number }> {
  const session = await setup.bridge.createSession({ title: `resume ${cutTimes}` });
  try {
    const turn = await session.send(PROMPT, { delivery: "queue" });
    let cuts = 0;
    let cutting: NodeJS.Timeout | undefined;
    try {
      for await (const event of turn.events()) {
        // Cut on a clock once the text streams, until enough cuts happened: not on deltas,
        // since a part that spans a reconnect hands out no more of them (its rest comes from
        // its end).
        if (event.type === "text.delta" && cutTimes > 0 && cutting === undefined) {
          cutting = setInterval(() => {
            if (cuts < cutTimes) cuts += setup.proxy.cut() > 0 ? 1 : 0;
          }, CUT_EVERY_MS);
        }
      }
    } finally {
      clearInterval(cutting);
    }
    const result = await turn.done();
    return { events: await session.transcript(), text: result.text, cuts };
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
    expect(comparableEvents(cut.events)).toEqual(comparableEvents(uncut.events));
    const seqs = cut.events.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  });
});
