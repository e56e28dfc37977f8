/**
 * An input whose admission named a turn of its own, delivered by OpenCode into another turn
 * (found by the reliability suite's sidecar-clients scenario: an admitted steer's turn never
 * ended). 1.18.33's runner, as it starts a queued input's turn (between two turns, or when a
 * queued input comes to an idle session), delivers that input and every steer waiting with it
 * in one step: a steer admitted just before, while no turn ran, is admitted with a turn of its
 * own and delivered into the queued input's turn. Its own turn never starts; it ends with the
 * turn that took its input. (A full run had it as a session's first two inputs: a queued one,
 * then a steer, delivered together.)
 *
 * The native frames go through the real `/api` normaliser, in the order 1.18.33 sends them.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type NativeFedBackend,
  nativeFedApiSession,
} from "../../../test/support/native-fed-backend.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { turnIdFor } from "../../events/turn-state.js";
import type { Session, SessionOptions } from "./session.js";

const SESSION = "ses_joined";

const nativeFedSession = (options: Partial<SessionOptions> = {}) =>
  nativeFedApiSession(SESSION, options);

const endsByTurn = (events: CanonicalEvent[]) => {
  const ends = new Map<string, number>();
  for (const event of events) {
    if (event.type === "turn.ended" && event.turnId !== undefined) {
      ends.set(event.turnId, (ends.get(event.turnId) ?? 0) + 1);
    }
  }
  return ends;
};

/**
 * The first turn runs and ends while a queued input waits upstream (its turn not started);
 * then a steer is admitted (a turn of its own), and the runner delivers both in one step.
 */
async function steerJoinsQueued(backend: NativeFedBackend, session: Session) {
  const turns = await firstTurnEndedQueueWaiting(backend, session);
  const steered = await session.send("steered", { delivery: "steer" });
  backend.prompted("msg_2", "queue");
  backend.prompted("msg_3", "steer");
  return { ...turns, steered };
}

/** The first turn runs and ends while a queued input waits upstream (its turn not started). */
async function firstTurnEndedQueueWaiting(backend: NativeFedBackend, session: Session) {
  const first = await session.send("first", { delivery: "queue" });
  backend.prompted("msg_1", "queue");
  const queued = await session.send("queued", { delivery: "queue" });
  backend.step("step_1");
  return { first, queued };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("Session: an input delivered into another turn than the one its admission named", () => {
  it("a steer admitted between two turns ends with the queued turn that took it, once", async () => {
    const { session, backend } = nativeFedSession();
    // The first turn ends; the queued input waits in OpenCode's queue.
    const { first, queued } = await firstTurnEndedQueueWaiting(backend, session);
    const steered = await session.send("steered", { delivery: "steer" });
    // Admitted while no turn ran: the steer was promised a turn of its own.
    expect(steered.id).toBe(turnIdFor("msg_3"));
    expect(steered.state).toBe("pending");
    // The runner's next turn: the queued input, then the waiting steers, then one step.
    backend.prompted("msg_2", "queue");
    backend.prompted("msg_3", "steer");
    backend.step("step_2");
    await session.settled();

    expect(first.state).toBe("ended");
    expect(queued.state).toBe("ended");
    expect(steered.state).toBe("ended");
    // The steer's turn ends as the turn that answered it did; the usage is counted there.
    const { usage, ...answer } = await queued.done();
    expect(usage).toBeDefined();
    expect(await steered.done()).toEqual(answer);
    const transcript = await session.transcript();
    const delivered = transcript.find(
      (event) => event.type === "input.delivered" && event.data.inputId === "msg_3",
    );
    expect(delivered?.turnId).toBe(queued.id);
    expect(endsByTurn(transcript)).toEqual(
      new Map([
        [first.id, 1],
        [queued.id, 1],
        [steered.id, 1],
      ]),
    );
    // Nothing waits any more: the session is idle.
    expect(session.runningTurn).toBeUndefined();
    expect(session.idleSince).toBeDefined();
    await session.close();
  });

  it("a steer whose turn was guessed (its admission came late) ends with the turn it went into", async () => {
    vi.useFakeTimers();
    const { session, backend } = nativeFedSession();
    const { queued } = await firstTurnEndedQueueWaiting(backend, session);
    backend.holdNextAdmission = true;
    const sending = session.send("steered", { delivery: "steer" });
    // No admission within the bound: the send guesses, nothing running, a turn of its own.
    await vi.advanceTimersByTimeAsync(6_000);
    const steered = await sending;
    expect(steered.id).toBe(turnIdFor("msg_3"));
    // Meanwhile the queued input started its turn, and the steer was admitted into it.
    backend.prompted("msg_2", "queue");
    backend.admitHeld();
    backend.prompted("msg_3", "steer");
    backend.step("step_2");
    await session.settled();
    expect(queued.state).toBe("ended");
    expect(steered.state).toBe("ended");
    expect(await steered.done()).toMatchObject({ outcome: "completed" });
    expect(endsByTurn(await session.transcript()).get(steered.id)).toBe(1);
    await session.close();
  });

  it("ends with the turn that took its input when the session closes first", async () => {
    const { session, backend } = nativeFedSession();
    const { queued, steered } = await steerJoinsQueued(backend, session);
    await session.close();
    expect(queued.state).toBe("ended");
    expect(steered.state).toBe("ended");
    expect(await queued.done()).toMatchObject({ outcome: "failed", reason: "session-closed" });
    expect(await steered.done()).toMatchObject({ outcome: "failed", reason: "session-closed" });
  });

  it("an adopted session ends the joined turn whose host ended before the last bridge died", async () => {
    const { session, backend } = nativeFedSession();
    const { queued, steered } = await steerJoinsQueued(backend, session);
    backend.step("step_2");
    await session.settled();
    // What a bridge that died right after the host's end had kept: the joined turn's end missing.
    const kept = (await session.transcript()).filter(
      (event) => !(event.type === "turn.ended" && event.turnId === steered.id),
    );
    await session.close();
    const adopted = nativeFedSession({ resume: { events: kept, cursor: "0" } }).session;
    await adopted.settled();
    const ends = endsByTurn(await adopted.transcript());
    expect(ends.get(queued.id)).toBe(1);
    expect(ends.get(steered.id)).toBe(1);
    await adopted.close();
  });
});
