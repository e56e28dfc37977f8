/**
 * End to end (real 1.18.33 binary, scripted model): a Stop right after the turn started, before
 * its first step. On `serve` such a run stops without sending any event at all; the turn used
 * to wait, silent, for the stall watchdog (a user's Stop did nothing for a minute). It ends
 * `interrupted` now, and the next send works.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { BackendKind } from "../../src/backends/backend.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { untilTurnEvent } from "../support/turn-events.js";
import { within } from "../support/within.js";

const open: { bridge: Bridge; directory: string }[] = [];
afterAll(async () => {
  for (const { bridge, directory } of open) {
    await bridge.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

describe.each(["serve", "serve-legacy"] as const)(
  "%s: Stop right after the turn started",
  (backend: BackendKind) => {
    it("ends the turn interrupted, and the next send works", async () => {
      const directory = mkdtempSync(join(tmpdir(), "ocb-interrupt-early-"));
      const bridge = await Bridge.start({
        directory,
        backend,
        modelServer: demoModelServer,
        store: ":memory:",
      });
      open.push({ bridge, directory });
      if (bridge.backend !== "subprocess")
        trackProcess(bridge.server.pid, "opencode serve (early stop)");
      const session = await bridge.createSession();
      const turn = await session.send("[[slow 30 100]]", { delivery: "queue" });
      await untilTurnEvent(turn, (event) => event.type === "turn.started");
      await session.interrupt();
      expect(await within(turn.done(), "the stopped turn's end", 20_000)).toMatchObject({
        outcome: "interrupted",
      });
      const next = await session.send("[[reply after the stop]]", { delivery: "queue" });
      expect(await within(next.done(), "the next turn", 60_000)).toMatchObject({
        outcome: "completed",
        text: "after the stop",
      });
    });
  },
);
