/**
 * What runs in a session, followed from its canonical events alone: the turn between its start
 * and its end, whether one of its steps is under way, the tools it called that have not
 * finished, and the inputs handed to the backend that no turn has taken yet. The watchdog arms
 * for the phase read from it, and held inputs wait until it is free.
 *
 * `reduceRunState` is a pure function of (state, event); the inputs the session hands to the
 * backend itself enter through `withAwaiting`, since no event says so before their turn starts.
 */
import type { CanonicalEvent } from "../../events/canonical.js";

export interface RunState {
  /** The turn between its `turn.started` and `turn.ended`. */
  readonly running: string | undefined;
  /** A step of the running turn has started and not ended. */
  readonly inStep: boolean;
  /** Tools called and not finished: a tool may run for minutes, which is not a stall. */
  readonly runningTools: ReadonlySet<string>;
  /** Inputs handed to the backend that no turn has taken yet (input ids), oldest first. */
  readonly awaiting: readonly string[];
}

/** What the watchdog watches for: a step to start, or a started step to say something. */
export type WatchPhase = "idle" | "waiting-for-step" | "in-step";

const NO_TOOLS: ReadonlySet<string> = new Set();

export const initialRunState: RunState = {
  running: undefined,
  inStep: false,
  runningTools: NO_TOOLS,
  awaiting: [],
};

/** The run state after `event`. */
export function reduceRunState(state: RunState, event: CanonicalEvent): RunState {
  // Steps and tools outside the running turn (an aborted tool settling late) change nothing.
  const inRunningTurn = event.turnId !== undefined && event.turnId === state.running;
  switch (event.type) {
    case "turn.started": {
      const started = { ...state, running: event.turnId, inStep: false, runningTools: NO_TOOLS };
      const inputId = event.data.inputId;
      return inputId === undefined ? started : withoutAwaiting(started, inputId);
    }
    case "turn.ended":
      // The end of another turn (a held input taken back, which never started) leaves the
      // running one as it is.
      if (state.running !== undefined && state.running !== event.turnId) return state;
      return { ...state, running: undefined, inStep: false, runningTools: NO_TOOLS };
    case "input.delivered":
      return withoutAwaiting(state, event.data.inputId);
    case "step.started":
      return { ...state, inStep: inRunningTurn };
    case "step.ended":
    case "step.failed":
      return state.inStep ? { ...state, inStep: false } : state;
    case "tool.called":
      if (!inRunningTurn || state.runningTools.has(event.data.callId)) return state;
      return { ...state, runningTools: new Set([...state.runningTools, event.data.callId]) };
    case "tool.succeeded":
    case "tool.failed": {
      if (!state.runningTools.has(event.data.callId)) return state;
      const runningTools = new Set(state.runningTools);
      runningTools.delete(event.data.callId);
      return { ...state, runningTools };
    }
    // The rest say nothing about what runs. An ask waits inside its tool call, which already
    // keeps the watchdog resting; the connection is watched apart (`ConnectionWatch`).
    default:
      return state;
  }
}

/** `inputId` was handed to the backend and waits for a turn to take it (once only). */
export function withAwaiting(state: RunState, inputId: string): RunState {
  if (state.awaiting.includes(inputId)) return state;
  return { ...state, awaiting: [...state.awaiting, inputId] };
}

/** `inputId` no longer waits: a turn took it, or the runtime gave up on it. */
export function withoutAwaiting(state: RunState, inputId: string): RunState {
  if (!state.awaiting.includes(inputId)) return state;
  return { ...state, awaiting: state.awaiting.filter((id) => id !== inputId) };
}

/** A turn runs or an input waits for one: the watchdog (or the connection-lost bound) watches. */
export function isRunning(state: RunState): boolean {
  return state.running !== undefined || state.awaiting.length > 0;
}

/**
 * What the watchdog watches for now. `liveToolCalls`: the backend reports tool calls as they
 * start; without that, a step is silent while its tools run, for as long as they take, and
 * the process's exit ends the turn (an interrupt stops a hung one).
 */
export function watchPhase(state: RunState, liveToolCalls: boolean): WatchPhase {
  if (state.runningTools.size > 0) return "idle";
  if (state.inStep) return liveToolCalls ? "in-step" : "idle";
  return isRunning(state) ? "waiting-for-step" : "idle";
}

/** The source of the admissions of inputs the runtime holds back itself (never sent upstream). */
export const HELD_INPUT_SOURCE = "runtime.queue";

/**
 * The inputs that kept events show admitted upstream and still waiting for their turn: neither
 * delivered nor cancelled, their turn neither started nor ended (oldest first). A bridge that
 * died in that moment leaves them, with their turns, to the bridge that adopts the session.
 */
export function awaitingInputs(events: readonly CanonicalEvent[]): string[] {
  const admitted = new Map<string, string>(); // input id → its turn
  const settledInputs = new Set<string>();
  const settledTurns = new Set<string>();
  for (const event of events) {
    if (event.type === "input.admitted") {
      const held = event.native?.type === HELD_INPUT_SOURCE;
      if (!held && event.turnId !== undefined) admitted.set(event.data.inputId, event.turnId);
    } else if (event.type === "input.delivered" || event.type === "input.cancelled") {
      settledInputs.add(event.data.inputId);
    } else if (
      (event.type === "turn.started" || event.type === "turn.ended") &&
      event.turnId !== undefined
    ) {
      settledTurns.add(event.turnId);
    }
  }
  return [...admitted]
    .filter(([inputId, turnId]) => !settledInputs.has(inputId) && !settledTurns.has(turnId))
    .map(([inputId]) => inputId);
}
