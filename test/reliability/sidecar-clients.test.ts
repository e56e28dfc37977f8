/**
 * The reliability suite's sidecar-clients scenario, short variant (`npm run reliability --
 * --only sidecar-clients` runs 100 clients for 5 minutes): 20 WebSocket and SSE clients of a
 * real sidecar (the real `opencode`, the scripted model) connecting, getting cut, resuming and
 * sending at random from the suite's seed; every client's durable lists equal the store's. And
 * the comparison is not vacuous: it flags a list with a hole, a repeat or a foreign event.
 */
import { afterAll, describe, expect, it } from "vitest";
import {
  SIDECAR_CLIENTS,
  sidecarClientsScenario,
} from "../../bench/reliability/scenarios/sidecar-clients.js";
import { compareCopy, SessionCopy } from "../../bench/reliability/sidecar/session-copy.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

const suite = createSuiteFiles();
afterAll(() => suite.remove());

const event = (seq: number, id = `e${seq}`) => ({ id, seq, type: "text.ended", durable: true });

describe("reliability: sidecar clients cut and resumed (short variant)", () => {
  it(`${SIDECAR_CLIENTS.short.clients} clients end with the store's durable lists`, async () => {
    const context = scenarioContext(suite, sidecarClientsScenario.name, { short: true, seed: 17 });
    const row = await sidecarClientsScenario.run(context);
    expect(row.notes.filter((note) => /NO|errors from|failed connects|unended/.test(note))).toEqual(
      [],
    );
    expect(row.passed).toBe(true);
    expect(row.faultsInjected).toBeGreaterThan(SIDECAR_CLIENTS.short.clients);
    expect(row.turnsEndedOnce?.started).toBeGreaterThan(0);
    expect(row).toMatchObject({ durableLost: 0, duplicated: 0, crashes: 0, leakedProcesses: 0 });
  }, 120_000);

  it("flags a durable list with a hole, a repeat, or an event the store does not have", () => {
    const stored = [1, 2, 3, 4].map((seq) => ({ id: `e${seq}`, seq, type: "text.ended" }));
    const copy = new SessionCopy();
    for (const received of [event(1), event(2), event(2), event(4, "other")]) copy.take(received);
    // Ephemeral events are not compared.
    copy.take({ id: "d", type: "text.delta", durable: false });
    expect(copy.gaps).toBe(1);
    expect(compareCopy(copy, stored)).toEqual({ lost: 1, duplicated: 1, mismatched: 1 });
  });
});
