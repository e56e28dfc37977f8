/**
 * `opencode run --format json` output to canonical events. One process is one turn: the
 * backend starts the turn when it spawns the process and ends it when the process exits
 * (`runEnded`); in between, each whole part becomes its started/ended pair (there are no
 * deltas), and a tool — printed only once it has settled — becomes `tool.input.started`,
 * `tool.called` and its outcome at once.
 */
import type { Parsed } from "../opencode-protocol/common.js";
import type { RunLine } from "../opencode-protocol/run/events.js";
import { assertNever } from "../util/assert-never.js";
import {
  emitterInto,
  errorInfoOf,
  type Normalized,
  type Origin,
  toolErrorKind,
  usageOf,
} from "./build.js";
import type { CanonicalEvent, ErrorInfo } from "./canonical.js";
import { emitInterruptedWork, emitStepFailure } from "./step-endings.js";
import {
  addTurnText,
  addTurnUsage,
  endingOf,
  initialTurnState,
  startTurn,
  type TurnState,
} from "./turn-state.js";

export interface RunNormalizerState extends TurnState {
  readonly sessionId: string;
  /** The upstream session id, from the first line that names it. */
  readonly upstreamId: string | undefined;
  /** The error line of the running turn, if one came. */
  readonly error: ErrorInfo | undefined;
  /** Lines of the running turn so far: a base for event ids that do not repeat. */
  readonly lines: number;
  /** The step started and not finished. */
  readonly openStep: string | undefined;
}

export function initialRunState(sessionId: string, upstreamId?: string): RunNormalizerState {
  return {
    ...initialTurnState,
    sessionId,
    upstreamId,
    error: undefined,
    lines: 0,
    openStep: undefined,
  };
}

/** The process for `inputId` was spawned: its turn starts. */
export function runStarted(
  state: RunNormalizerState,
  inputId: string,
  input: { text: string; announced: boolean },
): Normalized<RunNormalizerState> {
  const next: RunNormalizerState = {
    ...startTurn(state, inputId),
    error: undefined,
    lines: 0,
    openStep: undefined,
  };
  const events: CanonicalEvent[] = [];
  const origin = originOf(next, "process.spawned", Date.now(), `${next.turn?.id}/spawn`);
  const emit = emitterInto(events, () => origin);
  if (!input.announced) {
    emit("input.admitted", {
      inputId,
      text: input.text,
      delivery: "queue",
    });
  }
  emit("turn.started", { inputId });
  emit("input.delivered", { inputId });
  return { state: next, events };
}

/** How the process ended. `interrupted`: the runtime killed it on purpose. */
export interface RunExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  interrupted: boolean;
  /** The last lines of its stderr, for a failure that printed no error line. */
  stderrTail?: string[];
}

/** The process exited: its turn ends. */
export function runEnded(state: RunNormalizerState, exit: RunExit): Normalized<RunNormalizerState> {
  const turn = state.turn;
  if (turn === undefined) return { state, events: [] };
  const events: CanonicalEvent[] = [];
  const origin = originOf(state, "process.exited", Date.now(), `${turn.id}/exit`);
  const emit = emitterInto(events, () => origin);
  if (exit.interrupted) {
    // The process prints a tool only once it settled: a tool cut short was never seen.
    emitInterruptedWork(emit, state.openStep, []);
    emit("turn.ended", endingOf(turn, "interrupted"));
  } else if (state.error !== undefined) {
    emit("turn.ended", endingOf(turn, "failed", { reason: "step-failed", error: state.error }));
  } else if (exit.code !== 0) {
    const how =
      exit.signal === null ? `exited with code ${exit.code}` : `was killed by ${exit.signal}`;
    const tail = exit.stderrTail?.slice(-5).join("\n");
    const error = {
      kind: "process-exited",
      message: `opencode run ${how}${tail ? `: ${tail}` : ""}`,
    };
    // A step cut short by the crash fails with it.
    if (state.openStep !== undefined) emit("step.failed", { stepId: state.openStep, error });
    emit("turn.ended", endingOf(turn, "failed", { reason: "process-exited", error }));
  } else {
    emit("turn.ended", endingOf(turn, "completed"));
  }
  return { state: { ...state, turn: undefined, error: undefined, openStep: undefined }, events };
}

/** Normalises one parsed output line of the running process. Pure. */
export function normalizeRunLine(
  state: RunNormalizerState,
  parsed: Parsed<RunLine>,
): Normalized<RunNormalizerState> {
  const raw = parsed.event as { timestamp?: unknown; sessionID?: unknown };
  const at = Number.isFinite(raw.timestamp) ? (raw.timestamp as number) : Date.now();
  let next: RunNormalizerState = {
    ...state,
    lines: state.lines + 1,
    // The latest line's: were a run ever to start a session of its own, it would show.
    upstreamId: typeof raw.sessionID === "string" ? raw.sessionID : state.upstreamId,
  };
  const events: CanonicalEvent[] = [];
  const id = `${state.turn?.id ?? "noturn"}/${next.lines}`;
  const origin = originOf(next, parsed.event.type, at, id);
  const emit = emitterInto(events, () => origin);
  if (!parsed.known) {
    emit("native.unknown", { nativeType: parsed.event.type, raw: parsed.event });
    return { state: next, events };
  }
  const line = parsed.event;
  switch (line.type) {
    case "step_start":
      next = { ...next, openStep: line.part.messageID };
      emit("step.started", { stepId: line.part.messageID });
      break;
    case "step_finish": {
      const usage = usageOf(line.part.tokens, line.part.cost);
      next = { ...addTurnUsage(next, usage), openStep: undefined };
      emit("step.ended", { stepId: line.part.messageID, finish: line.part.reason, usage });
      break;
    }
    case "text":
    case "reasoning": {
      const partId = `${line.part.messageID}/${line.part.id}`;
      const stepId = line.part.messageID;
      emit(line.type === "text" ? "text.started" : "reasoning.started", { partId, stepId });
      emit(line.type === "text" ? "text.ended" : "reasoning.ended", {
        partId,
        stepId,
        text: line.part.text,
      });
      if (line.type === "text") next = addTurnText(next, stepId, line.part.text);
      break;
    }
    case "tool_use": {
      const { callID: callId, tool, state: toolState } = line.part;
      emit("tool.input.started", { callId, tool, stepId: line.part.messageID });
      emit("tool.input.ended", { callId, input: JSON.stringify(toolState.input) });
      emit("tool.called", { callId, tool, input: toolState.input, stepId: line.part.messageID });
      if (toolState.status === "completed") {
        emit("tool.succeeded", {
          callId,
          output: toolState.output,
          ...(toolState.title === undefined ? {} : { title: toolState.title }),
        });
      } else {
        // Without `--auto` every ask is rejected: the tool fails with OpenCode's message.
        emit("tool.failed", {
          callId,
          error: { kind: toolErrorKind(toolState.error), message: toolState.error },
        });
      }
      break;
    }
    case "error": {
      const error = errorInfoOf(line.error);
      if (next.turn === undefined) {
        emit("session.error", { error });
        break;
      }
      emitStepFailure(emit, next.openStep, `${next.turn.id}/step-${next.lines}`, error);
      next = { ...next, error, openStep: undefined };
      break;
    }
    default:
      return assertNever(line, "opencode run line");
  }
  return { state: next, events };
}

function originOf(state: RunNormalizerState, type: string, at: number, id: string): Origin {
  return {
    sessionId: state.sessionId,
    turnId: state.turn?.id,
    at,
    native: { backend: "subprocess", type, id },
  };
}
