/**
 * End to end: an input that arrives while a turn is finishing (sent the moment its last text
 * is complete) neither loses events nor makes two turns of one, on both serve surfaces
 * (real 1.18.33 binary, scripted model). Repeated, since the window is narrow.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { untilTurnEvent } from "../support/turn-events.js";

const ROUNDS = 4;

for (const backend of ["serve", "serve-legacy"] as const) {
  describe(`a send while a turn finishes, on ${backend}`, () => {
    let bridge: Bridge;
    let directory: string;
    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), `ocb-race-${backend}-`));
      bridge = await Bridge.start({
        directory,
        modelServer: demoModelServer,
        backend,
        store: ":memory:",
      });
      trackProcess(bridge.server.pid, `opencode serve (race, ${backend})`);
    });
    afterAll(async () => {
      await bridge?.close();
      rmSync(directory, { recursive: true, force: true });
    });

    it("gives one turn per input, each with one start and one end, and no gap", async () => {
      const session = await bridge.createSession();
      for (let round = 0; round < ROUNDS; round++) {
        const first = await session.send(`[[reply first ${round}]]`, { delivery: "queue" });
        await untilTurnEvent(first, (event) => event.type === "text.ended");
        const second = await session.send(`[[reply second ${round}]]`, { delivery: "queue" });
        expect(await first.done()).toMatchObject({ outcome: "completed", text: `first ${round}` });
        expect(await second.done()).toMatchObject({
          outcome: "completed",
          text: `second ${round}`,
        });
        expect(second).not.toBe(first);
      }
      const transcript = await session.transcript();
      const starts = transcript.filter((event) => event.type === "turn.started");
      const ends = transcript.filter((event) => event.type === "turn.ended");
      expect(starts).toHaveLength(2 * ROUNDS);
      expect(ends.map((event) => event.turnId)).toEqual(starts.map((event) => event.turnId));
      expect(transcript.map((event) => event.seq)).toEqual(transcript.map((_, index) => index + 1));
      await session.close();
    });
  });
}
