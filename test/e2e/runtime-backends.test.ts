/**
 * End to end: what the serve-legacy and subprocess backends do beyond the parity scenarios,
 * against the real 1.18.33 binary and the scripted model: the legacy steer (a prompt into the
 * busy session joins the running turn), and the subprocess session that each run continues
 * (`--session`), with a steer that supersedes the running turn.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge, type BridgeOptions } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { processesIn } from "../support/processes-in.js";
import { collectTurn, untilTurnEvent } from "../support/turn-events.js";

let bridge: Bridge | undefined;
let directory: string | undefined;

async function start(options: Omit<BridgeOptions, "directory" | "demo">): Promise<Bridge> {
  directory = mkdtempSync(join(tmpdir(), "ocb-backends-"));
  bridge = await Bridge.start({ directory, modelServer: demoModelServer, ...options });
  if (bridge.backend !== "subprocess") trackProcess(bridge.server.pid, "opencode serve (backends)");
  return bridge;
}

afterEach(async () => {
  await bridge?.close();
  if (directory !== undefined) {
    expect(processesIn(directory)).toEqual([]);
    rmSync(directory, { recursive: true, force: true });
  }
  bridge = undefined;
  directory = undefined;
});

describe("the serve-legacy backend", () => {
  it("steers mid-turn: one turn, the same object, the steer delivered inside it", async () => {
    const session = await (await start({ backend: "serve-legacy" })).createSession();
    // Long enough that a loaded machine still steers into it before it ends.
    const first = await session.send("[[slow 40 150]]", { delivery: "queue" });
    await untilTurnEvent(first, (event) => event.type === "text.delta");
    const steered = await session.send("[[reply steered]]", { delivery: "steer" });
    expect(steered).toBe(first);
    const events = await collectTurn(first);
    expect(events.filter((event) => event.type === "input.delivered")).toHaveLength(2);
    expect(events.filter((event) => event.type === "turn.ended")).toHaveLength(1);
    expect(await first.done()).toMatchObject({ outcome: "completed", text: "steered" });
  });
});

describe("the subprocess backend", () => {
  it("continues one OpenCode session from run to run", async () => {
    const session = await (await start({ backend: "subprocess" })).createSession();
    expect(session.upstreamId).toBeUndefined();
    await (await session.send("[[reply one]]", { delivery: "queue" })).done();
    const upstream = session.upstreamId;
    expect(upstream).toMatch(/^ses_/);
    const second = await session.send("[[reply two]]", { delivery: "queue" });
    expect(await second.done()).toMatchObject({ outcome: "completed", text: "two" });
    expect(session.upstreamId).toBe(upstream);
    expect(session.id).not.toBe(upstream);
  });

  it("supersedes the running turn with a steer when told to: kill, then the new input", async () => {
    const session = await (
      await start({ backend: "subprocess", steerFallback: "supersede" })
    ).createSession();
    const first = await session.send(
      '[[tool bash {"command":"sleep 30","description":"wait"}]] [[then never]]',
      { delivery: "queue" },
    );
    await untilTurnEvent(first, (event) => event.type === "step.started");
    const now = await session.send("[[reply superseded]]", { delivery: "steer" });
    expect(now).not.toBe(first);
    expect(await first.done()).toMatchObject({ outcome: "interrupted" });
    expect(await now.done()).toMatchObject({ outcome: "completed", text: "superseded" });
  });

  it("refuses what it cannot do before running anything", async () => {
    const session = await (await start({ backend: "subprocess" })).createSession();
    await expect(
      session.send("hi", { delivery: "queue", files: ["data:image/png;base64,AAAA"] }),
    ).rejects.toThrow(/attaches local files only/);
    await expect(session.send("hi", { delivery: "queue", agents: ["general"] })).rejects.toThrow(
      /cannot mention agents/,
    );
    expect(await session.transcript()).toEqual([]);
  });
});
