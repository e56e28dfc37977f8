/**
 * End to end, against the real 1.18.33 binary and the demo model: a queued input and a steer
 * sent back to back to an idle session. OpenCode starts the queued input's turn and delivers
 * every steer waiting with it in the same step, so a steer admitted before that delivery, while
 * no turn ran (with a turn of its own), goes into the queued input's turn. That turn of its own
 * never starts; before the fix it never ended either (the reliability suite's sidecar-clients
 * scenario found it: an admitted send's turn hung). It must end once, with the turn that took
 * its input.
 *
 * The window is OpenCode's, between its run's start and its delivery of the waiting inputs; a
 * big instructions file (AGENTS.md, which the runner loads in that window) widens it so that a
 * session's first turn lands in it. Each attempt is a fresh session; the test needs one hit.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { within } from "../support/within.js";

const ATTEMPTS = 3;
/** Bound on a turn's end on a loaded machine (the hang this test is about never ends). */
const TURN_BOUND_MS = 60_000;

let bridge: Bridge;
let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ocb-joined-"));
  writeFileSync(join(directory, "AGENTS.md"), "Answer briefly.\n".repeat(64 * 1024));
  bridge = await Bridge.start({ directory, modelServer: demoModelServer });
  trackProcess(bridge.server.pid, "opencode serve (joined-turn e2e)");
});
afterAll(async () => {
  await bridge?.close();
  rmSync(directory, { recursive: true, force: true });
});

const endsOf = (events: CanonicalEvent[], turnId: string) =>
  events.filter((event) => event.type === "turn.ended" && event.turnId === turnId).length;

describe("a steer admitted just before OpenCode delivers a queued input", () => {
  it("goes into the queued input's turn, and its own turn ends once, with that one", async () => {
    let joined = 0;
    for (let attempt = 1; attempt <= ATTEMPTS && joined === 0; attempt++) {
      const session = await bridge.createSession({ title: `joined ${attempt}` });
      // As the sidecar's sends go: one at a time, the steer once the queued one was admitted.
      const [queued, steered] = await Promise.all([
        session.send(`[[reply queued ${attempt}]]`, { delivery: "queue" }),
        session.send(`[[reply steered ${attempt}]]`, { delivery: "steer" }),
      ]);
      await within(
        Promise.all([queued.done(), steered.done()]),
        "both turns' ends (the steer's own turn hung before the fix)",
        TURN_BOUND_MS,
      );
      const transcript = await session.transcript();
      expect(endsOf(transcript, queued.id)).toBe(1);
      expect(endsOf(transcript, steered.id)).toBe(1);
      const steerDelivered = transcript.find(
        (event) =>
          event.type === "input.delivered" &&
          event.turnId === queued.id &&
          `turn_${event.data.inputId}` === steered.id,
      );
      if (steered.id !== queued.id && steerDelivered !== undefined) {
        joined++;
        // The turn that took the steer answered it: its own turn ends as that one did.
        const { usage: _counted, ...answer } = await queued.done();
        expect(await steered.done()).toEqual(answer);
        expect(answer).toMatchObject({ outcome: "completed", text: `steered ${attempt}` });
      }
      await session.close();
    }
    // Otherwise the race was not reproduced and the test proved nothing.
    expect(joined).toBeGreaterThan(0);
  });
});
