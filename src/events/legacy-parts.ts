/**
 * The legacy `/event` stream's part snapshots as transitions. `message.part.updated` sends a
 * part whole, again at each change; the normaliser remembers what it last emitted for each part
 * and emits only what changed: a text or reasoning part's first snapshot is its start, the one
 * with an end time its end; a tool part's states become `tool.input.started`, then
 * `tool.input.ended` + `tool.called`, then `tool.succeeded` / `tool.failed` (and, for a `task`
 * call that runs a child session, `subagent.started` / `subagent.ended`).
 */
import type { Part } from "../opencode-protocol/legacy/parts.js";
import { type Emit, toolErrorKind } from "./build.js";
import { addTurnText, type TurnState } from "./turn-state.js";

/** What was last emitted for a part: a text's start or end, or the state of a tool call. */
export type PartSeen = "text-started" | "text-ended" | "pending" | "running" | "done";

/** The part of the legacy normaliser's state that follows parts. */
export interface PartsState extends TurnState {
  /** What was last emitted for each part (or tool call), by part id. */
  readonly parts: ReadonlyMap<string, PartSeen>;
  /** Part types by id, to route deltas (text or reasoning). */
  readonly partTypes: ReadonlyMap<string, string>;
  /** Tool calls that started and have not settled, by part id. */
  readonly openTools: ReadonlyMap<string, string>;
  /** The child session of each `task` call whose subagent started, by call id. */
  readonly subagents: ReadonlyMap<string, string>;
}

type TextPart = Extract<Part, { type: "text" | "reasoning" }>;
type ToolPart = Extract<Part, { type: "tool" }>;

/** An assistant's text or reasoning snapshot: its start the first time, its end once. */
export function textPartSnapshot<State extends PartsState>(
  state: State,
  part: TextPart,
  emit: Emit,
): State {
  let next = state;
  const seen = next.parts.get(part.id);
  const ended = part.time?.end !== undefined;
  const partId = `${part.messageID}/${part.id}`;
  if (seen === undefined) {
    emit(part.type === "text" ? "text.started" : "reasoning.started", {
      partId,
      stepId: part.messageID,
    });
    next = remember(next, part.id, "text-started", part.type);
  }
  if (ended && seen !== "text-ended") {
    emit(part.type === "text" ? "text.ended" : "reasoning.ended", {
      partId,
      stepId: part.messageID,
      text: part.text,
    });
    if (part.type === "text") next = addTurnText(next, part.messageID, part.text);
    next = remember(next, part.id, "text-ended", part.type);
  }
  return next;
}

/** A tool part's snapshot: each state it reached since the last one, in order, once. */
export function toolPartSnapshot<State extends PartsState>(
  state: State,
  part: ToolPart,
  emit: Emit,
): State {
  let next = state;
  const seen = next.parts.get(part.id);
  const status = part.state.status;
  if (seen === undefined) {
    emit("tool.input.started", { callId: part.callID, tool: part.tool, stepId: part.messageID });
    next = remember(next, part.id, "pending", "tool");
    next = { ...next, openTools: new Map(next.openTools).set(part.id, part.callID) };
  }
  if (
    (status === "running" || status === "completed" || status === "error") &&
    (seen === undefined || seen === "pending")
  ) {
    emit("tool.input.ended", { callId: part.callID, input: JSON.stringify(part.state.input) });
    emit("tool.called", {
      callId: part.callID,
      tool: part.tool,
      input: part.state.input,
      stepId: part.messageID,
    });
    next = remember(next, part.id, "running", "tool");
  }
  const childSessionId =
    part.state.status === "pending" ? undefined : part.state.metadata?.sessionId;
  if (
    part.tool === "task" &&
    typeof childSessionId === "string" &&
    !next.subagents.has(part.callID)
  ) {
    const { subagent_type: agent, description } = part.state.input;
    emit("subagent.started", {
      callId: part.callID,
      childSessionId,
      ...(typeof agent === "string" ? { agent } : {}),
      ...(typeof description === "string" ? { description } : {}),
    });
    next = { ...next, subagents: new Map(next.subagents).set(part.callID, childSessionId) };
  }
  if (status === "completed" || status === "error") {
    next = { ...next, openTools: without(next.openTools, part.id) };
  }
  const child = next.subagents.get(part.callID);
  if (child !== undefined && (status === "completed" || status === "error") && seen !== "done") {
    emit("subagent.ended", {
      callId: part.callID,
      childSessionId: child,
      result: part.state.status === "completed" ? part.state.output : part.state.error,
    });
  }
  if (status === "completed" && seen !== "done") {
    emit("tool.succeeded", {
      callId: part.callID,
      output: part.state.output,
      title: part.state.title,
    });
    next = remember(next, part.id, "done", "tool");
  } else if (status === "error" && seen !== "done") {
    emit("tool.failed", {
      callId: part.callID,
      error: { kind: toolErrorKind(part.state.error), message: part.state.error },
    });
    next = remember(next, part.id, "done", "tool");
  }
  return next;
}

/** Records what was emitted for a part, and its type. */
export function remember<State extends PartsState>(
  state: State,
  partId: string,
  seen: PartSeen,
  type: string,
): State {
  return {
    ...state,
    parts: new Map(state.parts).set(partId, seen),
    partTypes: new Map(state.partTypes).set(partId, type),
  };
}

function without<V>(map: ReadonlyMap<string, V>, key: string): ReadonlyMap<string, V> {
  if (!map.has(key)) return map;
  const copy = new Map(map);
  copy.delete(key);
  return copy;
}
