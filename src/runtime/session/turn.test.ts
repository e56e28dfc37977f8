/** A Turn on its own: what it yields while it runs, and what is left once it has ended. */
import { describe, expect, it } from "vitest";
import { canonical } from "../../events/build.js";
import type { CanonicalEvent, CanonicalEventOf, CanonicalType } from "../../events/canonical.js";
import { EventLog } from "./event-log.js";
import { Turn } from "./turn.js";

let made = 0;

function event<T extends CanonicalType>(
  turnId: string,
  type: T,
  data: CanonicalEventOf<T>["data"],
): CanonicalEvent {
  const n = ++made;
  const origin = {
    sessionId: "ocb_turn",
    turnId,
    at: n,
    native: { backend: "serve" as const, type, id: `evt_${n}` },
  };
  return canonical(origin, 0, type, data);
}

/** A turn's events, with the next turn's admission in the middle (a queued input). */
function script(turnId: string, next: string): CanonicalEvent[] {
  return [
    event(turnId, "input.admitted", { inputId: "in_1", text: "hi", delivery: "queue" }),
    event(turnId, "turn.started", { inputId: "in_1" }),
    event(turnId, "text.started", { partId: "p" }),
    event(turnId, "text.delta", { partId: "p", delta: "he" }),
    event(next, "input.admitted", { inputId: "in_2", text: "next", delivery: "queue" }),
    event(turnId, "text.delta", { partId: "p", delta: "llo" }),
    event(turnId, "text.ended", { partId: "p", text: "hello" }),
    event(turnId, "turn.ended", { outcome: "completed", text: "hello" }),
  ];
}

/** Appends the events to `log` and hands this turn's to `turn`, as the session does. */
function play(log: EventLog, turn: Turn, events: readonly CanonicalEvent[]): void {
  for (const e of events) {
    log.append(e, undefined, (stored) => {
      if (stored !== undefined && stored.turnId === turn.id) turn.push(stored);
    });
  }
}

async function collect(turn: Turn): Promise<CanonicalEvent[]> {
  const events: CanonicalEvent[] = [];
  for await (const e of turn.events()) events.push(e);
  return events;
}

const types = (events: readonly CanonicalEvent[]) => events.map((e) => e.type);

describe("Turn", () => {
  it("gives a reader that began while it ran every event, deltas too, however late it reads", async () => {
    const log = new EventLog();
    const turn = new Turn("turn_a", log);
    const events = script("turn_a", "turn_b");
    play(log, turn, events.slice(0, 2));
    const reader = turn.events()[Symbol.asyncIterator]();
    const first = await reader.next();
    play(log, turn, events.slice(2));
    expect(turn.state).toBe("ended");
    const rest: CanonicalEvent[] = [];
    for (let next = await reader.next(); !next.done; next = await reader.next()) {
      rest.push(next.value);
    }
    expect(types([first.value as CanonicalEvent, ...rest])).toEqual([
      "input.admitted",
      "turn.started",
      "text.started",
      "text.delta",
      "text.delta",
      "text.ended",
      "turn.ended",
    ]);
  });

  it("once ended, reads back its own durable events from the log, in order, with their seqs", async () => {
    const log = new EventLog({ pageSize: 2 });
    const turn = new Turn("turn_a", log);
    play(log, turn, script("turn_a", "turn_b"));
    const read = await collect(turn);
    expect(types(read)).toEqual([
      "input.admitted",
      "turn.started",
      "text.started",
      "text.ended",
      "turn.ended",
    ]);
    // Seq 4 is the next turn's admission: not this turn's.
    expect(read.map((e) => e.seq)).toEqual([1, 2, 3, 5, 6]);
    expect(await turn.done()).toMatchObject({ outcome: "completed", text: "hello" });
    expect(turn.partialText()).toBe("hello");
    expect(turn.waitingFor).toEqual([]);
  });

  it("without a log to read back from, keeps its durable events only once ended", async () => {
    const turn = new Turn("turn_a");
    for (const e of script("turn_a", "turn_b")) if (e.turnId === "turn_a") turn.push(e);
    expect(types(await collect(turn))).toEqual([
      "input.admitted",
      "turn.started",
      "text.started",
      "text.ended",
      "turn.ended",
    ]);
  });

  it("is pending until it starts, running until it ends, and ignores what comes after its end", () => {
    const turn = new Turn("turn_a");
    const [admitted, started, ...rest] = script("turn_a", "turn_b").filter(
      (e) => e.turnId === "turn_a",
    );
    turn.push(admitted as CanonicalEvent);
    expect(turn.state).toBe("pending");
    turn.push(started as CanonicalEvent);
    expect(turn.state).toBe("running");
    for (const e of rest) turn.push(e);
    expect(turn.state).toBe("ended");
    turn.push(event("turn_a", "turn.ended", { outcome: "failed", text: "late" }));
    expect(turn.partialText()).toBe("hello");
  });
});
