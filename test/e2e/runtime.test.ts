/**
 * End to end: the runtime (Bridge, Session, Turn) on the serve backend, against the real
 * 1.18.33 binary and the scripted model.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { collectTurn, untilTurnEvent } from "../support/turn-events.js";
import { turnGate } from "../support/turn-gate.js";

let bridge: Bridge;
let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ocb-runtime-"));
  // The default watchdog: a cold server's first turn has taken 7–9 s in CI, near a 4 s bound.
  bridge = await Bridge.start({ directory, modelServer: demoModelServer });
  trackProcess(bridge.server.pid, "opencode serve (runtime e2e)");
});
afterAll(async () => {
  await bridge?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("the runtime on the serve backend", () => {
  it("runs a text turn: deltas as they come, the whole text at the end", async () => {
    const session = await bridge.createSession({ title: "text" });
    const turn = await session.send("[[slow 5 20]]", { delivery: "queue" });
    const events = await collectTurn(turn);
    const result = await turn.done();
    expect(result).toMatchObject({ outcome: "completed", text: "tok1 tok2 tok3 tok4 tok5" });
    const types = events.map((event) => event.type);
    expect(types[0]).toBe("input.admitted");
    expect(types.filter((type) => type === "turn.started")).toHaveLength(1);
    expect(types.filter((type) => type === "turn.ended")).toHaveLength(1);
    const deltas = events.flatMap((event) =>
      event.type === "text.delta" ? [event.data.delta] : [],
    );
    // Deltas come on the live stream, the whole text on the durable one; the text's end waits
    // for its deltas (docs/events.md, "Deltas"), so the turn sees all of them, before it.
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("tok1 tok2 tok3 tok4 tok5");
    const textEnded = types.indexOf("text.ended");
    expect(types.lastIndexOf("text.delta")).toBeLessThan(textEnded);
    expect(result.usage?.tokens.output).toBeGreaterThan(0);
    await session.close();
  });

  it("runs a tool turn", async () => {
    const session = await bridge.createSession({ title: "tool" });
    const turn = await session.send('[[tool bash {"command":"echo hi"}]]', { delivery: "queue" });
    const events = await collectTurn(turn);
    const called = events.find((event) => event.type === "tool.called");
    expect(called?.data).toMatchObject({ tool: "bash", input: { command: "echo hi" } });
    const succeeded = events.find((event) => event.type === "tool.succeeded");
    expect(succeeded?.data).toMatchObject({ output: expect.stringContaining("hi") });
    expect(await turn.done()).toMatchObject({ outcome: "completed" });
    await session.close();
  });

  it("steers mid-turn: one turn, the same object, the steer delivered inside it", async () => {
    const session = await bridge.createSession({ title: "steer" });
    // Held open until the steer is in: one after the turn's end would be a turn of its own.
    const gate = turnGate(directory);
    const first = await session.send(`${gate.directive} [[slow 30 40]]`, { delivery: "queue" });
    await untilTurnEvent(first, (event) => event.type === "tool.called");
    const steered = await session.send("[[reply steered]]", { delivery: "steer" });
    expect(steered).toBe(first);
    gate.open();
    const events = await collectTurn(first);
    const delivered = events.filter((event) => event.type === "input.delivered");
    expect(delivered).toHaveLength(2);
    expect(events.filter((event) => event.type === "turn.ended")).toHaveLength(1);
    expect(await first.done()).toMatchObject({ outcome: "completed", text: "steered" });
    await session.close();
  });

  it("queues behind a running turn: two turns, in order", async () => {
    const session = await bridge.createSession({ title: "queue" });
    // Held open until the second is queued: it is pending while the first runs.
    const gate = turnGate(directory);
    const first = await session.send(`${gate.directive} [[slow 20 30]]`, { delivery: "queue" });
    await untilTurnEvent(first, (event) => event.type === "tool.called");
    const second = await session.send("[[reply second]]", { delivery: "queue" });
    expect(second).not.toBe(first);
    expect(second.state).toBe("pending");
    gate.open();
    const [a, b] = await Promise.all([first.done(), second.done()]);
    expect(a).toMatchObject({ outcome: "completed", text: expect.stringContaining("tok20") });
    expect(b).toMatchObject({ outcome: "completed", text: "second" });
    const ends = (await session.transcript()).filter((event) => event.type === "turn.ended");
    expect(ends.map((event) => event.turnId)).toEqual([first.id, second.id]);
    await session.close();
  });

  it("interrupts mid-tool: the turn ends interrupted, the next send works", async () => {
    const session = await bridge.createSession({ title: "interrupt" });
    const turn = await session.send('[[tool bash {"command":"sleep 30"}]]', { delivery: "queue" });
    await untilTurnEvent(turn, (event) => event.type === "tool.called");
    await session.interrupt();
    expect(await turn.done()).toMatchObject({ outcome: "interrupted" });
    const next = await session.send("[[reply after]]", { delivery: "queue" });
    expect(await next.done()).toMatchObject({ outcome: "completed", text: "after" });
    await session.close();
  });

  it("switches the model for the next turn", async () => {
    const session = await bridge.createSession({ title: "switch" });
    await session.switchModel({ providerID: "demo", modelID: "demo-2" });
    const turn = await session.send("[[reply switched]]", { delivery: "queue" });
    const events = await collectTurn(turn);
    const step = events.find((event) => event.type === "step.started");
    expect(step?.data).toMatchObject({ model: { providerID: "demo", modelID: "demo-2" } });
    expect(await turn.done()).toMatchObject({ outcome: "completed", text: "switched" });
    await session.close();
  });

  it("fails a turn whose model never answers, within the bound, with a hint", async () => {
    // Small bounds, on a bridge of their own attached to the same server, so that a model that
    // never answers fails the turn quickly while the other tests keep the default bounds.
    const { url, password } = bridge.server;
    const watched = await Bridge.start({
      directory,
      model: bridge.defaultModel,
      attach: { url, password: password ?? "" },
      watchdog: { admitTimeoutMs: 4_000, silenceTimeoutMs: 4_000 },
    });
    onTestFinished(async () => {
      await watched.close();
    });
    const session = await watched.createSession({ title: "hang" });
    const turn = await session.send("[[hang]]", { delivery: "queue" });
    const result = await turn.done();
    expect(result).toMatchObject({ outcome: "failed", reason: "stalled" });
    // A model that never answers never starts a step on 1.18: the no-step bound catches it.
    expect(result.error?.message).toMatch(/no step started within 4 s: the model did not answer/);
    const events = await collectTurn(turn);
    expect(events.filter((event) => event.type === "turn.ended")).toHaveLength(1);
    await session.close();
  });

  it("replays the session's kept events from a seq, then goes live", async () => {
    const session = await bridge.createSession({ title: "events" });
    const turn = await session.send("[[reply one]]", { delivery: "queue" });
    await turn.done();
    const kept = await session.transcript();
    expect(kept.map((event) => event.seq)).toEqual(kept.map((_, index) => index + 1));
    const controller = new AbortController();
    const seen: CanonicalEvent[] = [];
    const reading = (async () => {
      for await (const event of session.events({ after: 2, signal: controller.signal })) {
        seen.push(event);
        if (
          event.type === "turn.ended" &&
          seen.filter((e) => e.type === "turn.ended").length === 2
        ) {
          controller.abort();
        }
      }
    })().catch(() => {});
    const second = await session.send("[[reply two]]", { delivery: "queue" });
    await second.done();
    await reading;
    const seqs = seen.flatMap((event) => (event.seq === undefined ? [] : [event.seq]));
    expect(seqs[0]).toBe(3);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    await session.close();
  });
});
