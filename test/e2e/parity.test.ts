/**
 * Parity: the same scenarios on all three backends, against the real 1.18.33 binary and the
 * scripted model, give the same canonical turns once ids, times and delta chunking are left
 * out. Where a backend's capability object says it cannot see something, exactly that is
 * taken out of the expected sequence (`expectedSignature`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackendKind } from "../../src/backends/backend.js";
import { BACKEND_CAPABILITIES } from "../../src/backends/capabilities.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { PARITY_SCENARIOS } from "../parity/scenarios.js";
import { expectedSignature, paritySignature } from "../parity/signature.js";
import { processesIn } from "../support/processes-in.js";
import { attachBridge, useBridgeServer } from "../support/shared-real-server.js";

const REFERENCE: BackendKind = "serve";
const OTHERS: BackendKind[] = ["serve-legacy", "subprocess"];

/** Turns of each scenario on each backend. */
const results = new Map<string, CanonicalEvent[][]>();
const key = (backend: BackendKind, scenario: string) => `${backend}/${scenario}`;

/** The two serve backends attach to one server (the scenarios neither stop nor reconfigure it). */
const real = useBridgeServer();

for (const backend of [REFERENCE, ...OTHERS]) {
  describe(`the ${backend} backend`, () => {
    let bridge: Bridge;
    let directory: string;
    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), `ocb-parity-${backend}-`));
      bridge =
        backend === "subprocess"
          ? await Bridge.start({ directory, modelServer: demoModelServer, backend })
          : await attachBridge(real(), { directory, backend });
    });
    afterAll(async () => {
      await bridge?.close();
      // Nothing of the backend's (an `opencode run`, a tool's shell) outlives it.
      expect(processesIn(directory)).toEqual([]);
      rmSync(directory, { recursive: true, force: true });
    });

    for (const scenario of PARITY_SCENARIOS) {
      it(`runs the ${scenario.name} scenario`, async () => {
        const turns = await scenario.run(bridge);
        for (const events of turns) {
          expect(events.filter((event) => event.type === "turn.started")).toHaveLength(1);
          expect(events.filter((event) => event.type === "turn.ended")).toHaveLength(1);
        }
        results.set(key(backend, scenario.name), turns);
      });
    }

    it(`has deltas exactly when ${backend} declares streaming deltas`, () => {
      const [turn] = results.get(key(backend, "queue of two")) ?? [];
      const deltas = (turn ?? []).filter((event) => event.type === "text.delta");
      expect(deltas.length > 0).toBe(BACKEND_CAPABILITIES[backend].streamingDeltas);
    });
  });
}

describe("parity with the serve backend", () => {
  for (const backend of OTHERS) {
    for (const scenario of PARITY_SCENARIOS) {
      it(`${backend}: ${scenario.name}`, () => {
        const reference = results.get(key(REFERENCE, scenario.name));
        const turns = results.get(key(backend, scenario.name));
        if (reference === undefined || turns === undefined) {
          throw new Error(`the ${scenario.name} scenario did not complete on both backends`);
        }
        expect(turns.map(paritySignature)).toEqual(
          reference.map((turn) => expectedSignature(turn, BACKEND_CAPABILITIES[backend])),
        );
      });
    }
  }
});
