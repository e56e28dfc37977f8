/**
 * The `opencode run --format json` normaliser, driven as the subprocess backend drives it
 * (`runStarted` at spawn, one `normalizeRunLine` per stdout line, `runEnded` at exit) on
 * output recorded from OpenCode 1.18.33 and the scripted model (`npm run fixtures:record-run`),
 * and on small hand-made lines for what a recording cannot show.
 */
import { describe, expect, it } from "vitest";
import { readNdjson } from "../../test/support/fixture-files.js";
import { parseRunLine } from "../opencode-protocol/run/events.js";
import type { Normalized } from "./build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "./canonical.js";
import {
  initialRunState,
  normalizeRunLine,
  type RunExit,
  type RunNormalizerState,
  runEnded,
  runStarted,
} from "./normalize-run.js";

const SESSION = "ses_bridge";
const INPUT = "in_1";

/** Collects the events of each step and threads the state through. */
class Driver {
  state: RunNormalizerState;
  readonly events: CanonicalEvent[] = [];

  constructor(upstreamId?: string) {
    this.state = initialRunState(SESSION, upstreamId);
  }

  apply(result: Normalized<RunNormalizerState>): CanonicalEvent[] {
    this.state = result.state;
    this.events.push(...result.events);
    return result.events;
  }

  start(announced = false): CanonicalEvent[] {
    return this.apply(runStarted(this.state, INPUT, { text: "the prompt", announced }));
  }

  line(raw: unknown): CanonicalEvent[] {
    return this.apply(normalizeRunLine(this.state, parseRunLine(raw)));
  }

  end(exit: RunExit): CanonicalEvent[] {
    return this.apply(runEnded(this.state, exit));
  }
}

interface RecordedExit {
  exit: { code: number | null; signal: NodeJS.Signals | null };
}

/** Replays `fixtures/opencode-1.18.33/run-<name>.stdout.ndjson`: its lines, then its exit. */
function replay(name: string): { driver: Driver; lines: unknown[] } {
  const recorded = readNdjson(`opencode-1.18.33/run-${name}.stdout.ndjson`);
  const last = recorded.at(-1) as RecordedExit | undefined;
  if (last?.exit === undefined) throw new Error(`run-${name}: the last line is not the exit`);
  const lines = recorded.slice(0, -1);
  const driver = new Driver();
  driver.start();
  for (const line of lines) driver.line(line);
  driver.end({ code: last.exit.code, signal: last.exit.signal, interrupted: false });
  return { driver, lines };
}

function ofType<T extends CanonicalType>(
  events: readonly CanonicalEvent[],
  type: T,
): CanonicalEventOf<T>[] {
  // A generic `T` does not narrow the union; the filter on `type` is what makes this hold.
  return events.filter((event) => event.type === type) as unknown as CanonicalEventOf<T>[];
}

function only<T extends CanonicalType>(
  events: readonly CanonicalEvent[],
  type: T,
): CanonicalEventOf<T> {
  const found = ofType(events, type);
  expect(found, `exactly one ${type}`).toHaveLength(1);
  return found[0] as CanonicalEventOf<T>;
}

/** The shared shape of every replayed turn: one start, one end, nothing dropped, unique ids. */
function expectOneTurn(driver: Driver, lines: unknown[]): CanonicalEventOf<"turn.ended"> {
  const { events } = driver;
  only(events, "turn.started");
  const ended = only(events, "turn.ended");
  expect(events.at(-1)).toBe(ended);
  expect(events.map((event) => event.type).slice(0, 3)).toEqual([
    "input.admitted",
    "turn.started",
    "input.delivered",
  ]);
  expect(ofType(events, "native.unknown")).toEqual([]);
  expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  const turnId = events[0]?.turnId;
  expect(turnId).toBeDefined();
  expect(events.every((event) => event.turnId === turnId)).toBe(true);
  const first = lines[0] as { sessionID: string };
  expect(driver.state.upstreamId).toBe(first.sessionID);
  expect(driver.state.turn).toBeUndefined();
  return ended;
}

describe("normalizeRunLine: replay of recorded `opencode run --format json` output (1.18.33)", () => {
  it("text: reasoning, then the text; the turn completes with it and the step's usage", () => {
    const { driver, lines } = replay("text");
    const ended = expectOneTurn(driver, lines);
    expect(ended.data).toMatchObject({ outcome: "completed", text: "run pong" });
    expect(ended.data.usage?.tokens.output).toBeGreaterThan(0);
    expect(only(driver.events, "reasoning.ended").data).toMatchObject({ text: "thinking first" });
    expect(only(driver.events, "text.ended").data).toMatchObject({ text: "run pong" });
    expect(only(driver.events, "step.ended").data).toMatchObject({ finish: "stop" });
  });

  it("tool: a settled bash call becomes input, call and success at once; then the final text", () => {
    const { driver, lines } = replay("tool");
    const ended = expectOneTurn(driver, lines);
    const { events } = driver;
    const started = only(events, "tool.input.started");
    const inputEnded = only(events, "tool.input.ended");
    const called = only(events, "tool.called");
    const succeeded = only(events, "tool.succeeded");
    expect(started.data).toMatchObject({ tool: "bash" });
    expect(JSON.parse(inputEnded.data.input)).toMatchObject({ command: "echo hi" });
    expect(called.data).toMatchObject({ tool: "bash", input: { command: "echo hi" } });
    expect(succeeded.data.output).toContain("hi");
    for (const event of [inputEnded, called, succeeded]) {
      expect(event.data.callId).toBe(started.data.callId);
    }
    const order = events.map((event) => event.type);
    expect(order.indexOf("tool.input.started")).toBeLessThan(order.indexOf("tool.called"));
    expect(order.indexOf("tool.called")).toBeLessThan(order.indexOf("tool.succeeded"));
    expect(ofType(events, "step.started")).toHaveLength(2);
    expect(ofType(events, "step.ended").map((event) => event.data.finish)).toEqual([
      "tool-calls",
      "stop",
    ]);
    expect(ended.data).toMatchObject({ outcome: "completed", text: "tool done" });
  });

  it("provider-error: the lone error line fails a step opened for it; the turn fails", () => {
    const { driver, lines } = replay("provider-error");
    const ended = expectOneTurn(driver, lines);
    const { events } = driver;
    const stepStarted = only(events, "step.started");
    const failed = only(events, "step.failed");
    expect(failed.data.stepId).toBe(stepStarted.data.stepId);
    expect(failed.data.error.kind).toBe("provider");
    expect(failed.data.error.message).toContain("bad request");
    expect(ended.data).toMatchObject({
      outcome: "failed",
      reason: "step-failed",
      error: { kind: "provider" },
    });
  });

  it("permission-rejected: the ask `opencode run` rejects fails the tool as permission-rejected", () => {
    const { driver, lines } = replay("permission-rejected");
    const ended = expectOneTurn(driver, lines);
    const failed = only(driver.events, "tool.failed");
    expect(failed.data.error.kind).toBe("permission-rejected");
    expect(failed.data.error.message).toMatch(/rejected permission/i);
    expect(only(driver.events, "tool.called").data).toMatchObject({ tool: "write" });
    // OpenCode stops the turn at the rejection and exits 0: nothing failed but the tool.
    expect(ended.data).toMatchObject({ outcome: "completed", text: "" });
  });
});

describe("normalize-run: pure cases", () => {
  const base = { timestamp: 1_000, sessionID: "ses_upstream" };
  const stepStart = { ...base, type: "step_start", part: { id: "prt_1", messageID: "msg_1" } };

  it("an interrupted run ends its open step as interrupted, then the turn", () => {
    const driver = new Driver();
    driver.start();
    driver.line(stepStart);
    const events = driver.end({ code: null, signal: "SIGTERM", interrupted: true });
    expect(events.map((event) => event.type)).toEqual(["step.ended", "turn.ended"]);
    expect(events[0]?.data).toMatchObject({ stepId: "msg_1", finish: "interrupted" });
    expect(events[1]?.data).toMatchObject({ outcome: "interrupted" });
  });

  it("a non-zero exit without an error line fails the turn with the stderr tail", () => {
    const driver = new Driver();
    driver.start();
    driver.line(stepStart);
    const events = driver.end({
      code: 3,
      signal: null,
      interrupted: false,
      stderrTail: ["starting", "Error: the database is locked"],
    });
    // The step the crash cut short fails with it, then the turn.
    expect(events.map((event) => event.type)).toEqual(["step.failed", "turn.ended"]);
    expect(events[0]?.data).toMatchObject({ error: { kind: "process-exited" } });
    const data = (events[1] as CanonicalEventOf<"turn.ended">).data;
    expect(data).toMatchObject({
      outcome: "failed",
      reason: "process-exited",
      error: { kind: "process-exited" },
    });
    expect(data.error?.message).toContain("exited with code 3");
    expect(data.error?.message).toContain("Error: the database is locked");
  });

  it("a line of an unknown type becomes native.unknown, not dropped", () => {
    const driver = new Driver();
    driver.start();
    const raw = { ...base, type: "file_edited", file: "x.txt" };
    const events = driver.line(raw);
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe("native.unknown");
    expect(events[0]?.data).toMatchObject({ nativeType: "file_edited", raw });
  });

  it("an announced input is not admitted again at spawn", () => {
    const driver = new Driver();
    const events = driver.start(true);
    expect(events.map((event) => event.type)).toEqual(["turn.started", "input.delivered"]);
  });

  it("takes the upstream id from the lines' sessionID, the latest one winning", () => {
    const driver = new Driver();
    driver.start();
    expect(driver.state.upstreamId).toBeUndefined();
    driver.line(stepStart);
    expect(driver.state.upstreamId).toBe("ses_upstream");
    // Were a run to start a session of its own, the session would follow it (and show it).
    driver.line({ ...stepStart, sessionID: "ses_other" });
    expect(driver.state.upstreamId).toBe("ses_other");
  });
});
