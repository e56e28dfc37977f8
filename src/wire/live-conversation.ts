/**
 * A session as a chat UI shows it, live: the conversation folded from the durable events
 * (`reduceConversation`, the library's own), plus what only a live reader knows — the text
 * streamed into parts not yet ended, the running turn, inputs admitted but not yet delivered,
 * asks waiting for an answer, the running turn's usage so far and the session's connection to
 * its server. A pure reducer over canonical events, isomorphic, plain data (it survives
 * `JSON.stringify`), so that a UI holds no protocol logic of its own.
 *
 * Everything but `streaming`, `usage` and `connection` (fed by ephemeral events only) is a
 * function of the durable events: a state saved at some seq and fed the events after it equals
 * one built from the start. A durable event at or below the folded seq is ignored, so a
 * resumed subscription that overlaps never doubles anything.
 */
import type {
  CanonicalEvent,
  ConnectionState,
  FileChange,
  ModelRef,
  Todo,
  Usage,
} from "../events/canonical.js";
import { streamedText } from "../events/streamed-so-far.js";
import { tallyUsage } from "../events/usage-tally.js";
import type { Conversation } from "./conversation.js";
import { emptyConversation, reduceConversation } from "./conversation.js";

/** An input the session admitted and has not delivered to the model (nor cancelled) yet. */
export interface QueuedInput {
  inputId: string;
  text: string;
  delivery: "steer" | "queue";
  files?: string[];
  /** Milliseconds since the epoch. */
  at: number;
}

/**
 * A switch of the session's model, where the conversation stood when it came: a chat draws it
 * before the first user message after it (`afterInputs` user messages come before it).
 */
export interface ModelSwitch {
  /** The model of the latest step, or the one switched to before (absent if none was seen). */
  from?: ModelRef;
  to: ModelRef;
  /** How many user messages the conversation had when the switch came. */
  afterInputs: number;
  /** Milliseconds since the epoch. */
  at: number;
}

/** The files one turn changed, as its `files.changed` named them. */
export interface TurnFiles {
  files: FileChange[];
  /** Changed files beyond those named. */
  moreFiles?: number;
}

/** An ask waiting for its answer. */
export interface PendingAsk {
  kind: "permission" | "question";
  requestId: string;
  turnId?: string;
}

export interface LiveConversation {
  conversation: Conversation;
  /**
   * The deltas streamed so far into text and reasoning parts (by `partId`) and tool inputs
   * (by `callId`) that have not ended. The part's end carries the whole value and removes it.
   * A part cut off by an interrupt keeps what it streamed. A subscription that joins mid-part
   * is given the part's text so far first (a `catchUp` delta): it replaces what was there.
   */
  streaming: Readonly<Record<string, string>>;
  /** The turn running now, if any. */
  running?: string;
  /**
   * When the running turn started (milliseconds since the epoch, from its `turn.started`): a
   * page opened mid-turn measures its elapsed time from the start, not from the page's load.
   */
  runningSince?: number;
  /** Admitted, not yet delivered, in admission order. */
  queued: QueuedInput[];
  /** Asked, not yet answered (an ask of a turn that ended is moot: it goes with the turn). */
  pendingAsks: PendingAsk[];
  /** The running turn's usage so far (the ended turn's is on its message). */
  usage?: Usage;
  /** Whether the session's streams reach its server (`connection.changed`). */
  connection: ConnectionState;
  /** The model of the latest step, or the one switched to since (absent until either is seen). */
  model?: ModelRef;
  /** Each switch to another model, in order (a switch to the model already in use is none). */
  modelSwitches: ModelSwitch[];
  /** The agent of the latest step, or the one switched to since (absent until either is seen). */
  agent?: string;
  /** Why each ended turn that gave a reason ended (`step-failed`, `connection-lost`, …), by turn id. */
  endReasons: Readonly<Record<string, string>>;
  /** The session's todo list as the agent last wrote it (`todo.updated`; absent before). */
  todos?: Todo[];
  /** The files the latest turn that changed any changed (`files.changed`), and which turn. */
  filesChanged?: { turnId?: string; files: FileChange[]; moreFiles?: number };
  /** The files each turn changed (its `files.changed`), by turn id: a turn's own "changes". */
  turnFiles: Readonly<Record<string, TurnFiles>>;
  /** What every step of the session has spent so far, tokens and cost (its steps' usage summed). */
  spent?: Usage;
  /** The tokens the latest step had in its model's context (`Session.context()` gives the limit). */
  contextTokens?: number;
}

export function emptyLiveConversation(sessionId: string): LiveConversation {
  return {
    conversation: emptyConversation(sessionId),
    streaming: {},
    queued: [],
    pendingAsks: [],
    connection: { state: "connected", since: 0, attempt: 0 },
    modelSwitches: [],
    endReasons: {},
    turnFiles: {},
  };
}

/**
 * `state` with `event` folded in. Never mutates `state`; returns it unchanged for another
 * session's event or a durable event already folded in.
 */
export function reduceLive(state: LiveConversation, event: CanonicalEvent): LiveConversation {
  if (event.sessionId !== state.conversation.sessionId) return state;
  if (event.durable && event.seq !== undefined && event.seq <= state.conversation.lastSeq) {
    return state;
  }
  const conversation = reduceConversation(state.conversation, event);
  const next = conversation === state.conversation ? state : { ...state, conversation };
  return foldLive(next, event);
}

/** `reduceLive` over `events`, in order. */
export function liveConversationOf(
  sessionId: string,
  events: Iterable<CanonicalEvent>,
  from: LiveConversation = emptyLiveConversation(sessionId),
): LiveConversation {
  let state = from;
  for (const event of events) state = reduceLive(state, event);
  return state;
}

function foldLive(state: LiveConversation, event: CanonicalEvent): LiveConversation {
  switch (event.type) {
    case "text.delta":
    case "reasoning.delta": {
      const id = event.data.partId;
      return withStreaming(state, id, streamedText(state.streaming[id], event));
    }
    case "tool.input.delta": {
      const id = event.data.callId;
      return withStreaming(state, id, streamedText(state.streaming[id], event));
    }
    case "text.ended":
    case "reasoning.ended":
      return dropStreaming(state, event.data.partId);
    case "tool.input.ended":
    case "tool.called":
    case "tool.succeeded":
    case "tool.failed":
      return dropStreaming(state, event.data.callId);
    case "input.admitted": {
      const { inputId, text, delivery, files } = event.data;
      if (state.queued.some((input) => input.inputId === inputId)) return state;
      const input: QueuedInput = {
        inputId,
        text,
        delivery,
        ...(files === undefined ? {} : { files }),
        at: event.at,
      };
      return { ...state, queued: [...state.queued, input] };
    }
    case "input.delivered":
    case "input.cancelled":
      return withoutQueued(state, event.data.inputId);
    case "turn.started": {
      const started =
        event.data.inputId === undefined ? state : withoutQueued(state, event.data.inputId);
      const { usage: _previous, runningSince: _before, ...rest } = started;
      return event.turnId === undefined
        ? rest
        : { ...rest, running: event.turnId, runningSince: event.at };
    }
    case "turn.ended": {
      const { running, runningSince, usage: _final, ...rest } = state;
      const pendingAsks = state.pendingAsks.filter((ask) => ask.turnId !== event.turnId);
      const stillRunning =
        running !== undefined && running !== event.turnId
          ? { running, ...(runningSince === undefined ? {} : { runningSince }) }
          : {};
      const { reason } = event.data;
      const endReasons =
        reason === undefined || event.turnId === undefined
          ? state.endReasons
          : { ...state.endReasons, [event.turnId]: reason };
      return { ...rest, ...stillRunning, pendingAsks, endReasons };
    }
    case "permission.asked":
    case "question.asked": {
      const { requestId } = event.data;
      if (state.pendingAsks.some((ask) => ask.requestId === requestId)) return state;
      const kind = event.type === "permission.asked" ? "permission" : "question";
      const ask: PendingAsk = {
        kind,
        requestId,
        ...(event.turnId === undefined ? {} : { turnId: event.turnId }),
      };
      return { ...state, pendingAsks: [...state.pendingAsks, ask] };
    }
    case "permission.replied":
    case "question.replied":
    case "question.rejected": {
      const { requestId } = event.data;
      const pendingAsks = state.pendingAsks.filter((ask) => ask.requestId !== requestId);
      return pendingAsks.length === state.pendingAsks.length ? state : { ...state, pendingAsks };
    }
    case "usage.updated":
      return { ...state, usage: event.data.usage };
    case "model.switched":
      return { ...switchedTo(state, event.data.model, event.at), model: event.data.model };
    case "agent.switched":
      return { ...state, agent: event.data.agent };
    case "step.started": {
      const { model, agent } = event.data;
      if (model === undefined && agent === undefined) return state;
      return {
        ...state,
        ...(model === undefined ? {} : { model }),
        ...(agent === undefined ? {} : { agent }),
      };
    }
    case "connection.changed":
      return { ...state, connection: event.data };
    case "todo.updated":
      return { ...state, todos: event.data.todos };
    case "files.changed": {
      const { files, moreFiles } = event.data;
      const turnFiles =
        event.turnId === undefined
          ? state.turnFiles
          : {
              ...state.turnFiles,
              [event.turnId]: moreFiles === undefined ? { files } : { files, moreFiles },
            };
      return {
        ...state,
        filesChanged: {
          ...(event.turnId === undefined ? {} : { turnId: event.turnId }),
          ...event.data,
        },
        turnFiles,
      };
    }
    case "step.ended":
    case "step.failed":
      return withSwitchesWithin(withTally(state, event));
    case "session.created":
    case "session.updated":
    case "session.error":
    case "text.started":
    case "reasoning.started":
    case "tool.input.started":
    case "tool.progress":
    case "subagent.started":
    case "subagent.ended":
    case "session.reverted":
    case "session.unreverted":
      return withSwitchesWithin(state);
    // The rest change nothing that a live view keeps beside the conversation.
    default:
      return state;
  }
}

/** `state` with a step's usage counted in its totals. */
function withTally(state: LiveConversation, event: CanonicalEvent): LiveConversation {
  const tally = tallyUsage(
    {
      ...(state.spent === undefined ? {} : { total: state.spent }),
      ...(state.contextTokens === undefined ? {} : { contextTokens: state.contextTokens }),
    },
    event,
  );
  if (tally.total === undefined || tally.total === state.spent) return state;
  return {
    ...state,
    spent: tally.total,
    ...(tally.contextTokens === undefined ? {} : { contextTokens: tally.contextTokens }),
  };
}

function withStreaming(state: LiveConversation, id: string, text: string): LiveConversation {
  return { ...state, streaming: { ...state.streaming, [id]: text } };
}

function dropStreaming(state: LiveConversation, id: string): LiveConversation {
  if (!(id in state.streaming)) return state;
  const { [id]: _ended, ...streaming } = state.streaming;
  return { ...state, streaming };
}

/** `state` with a mark of the switch to `to`, unless that model is already the one in use. */
function switchedTo(state: LiveConversation, to: ModelRef, at: number): LiveConversation {
  const from = state.model;
  if (from !== undefined && from.providerID === to.providerID && from.modelID === to.modelID) {
    return state;
  }
  const afterInputs = userMessages(state);
  const mark: ModelSwitch = { ...(from === undefined ? {} : { from }), to, afterInputs, at };
  return { ...state, modelSwitches: [...state.modelSwitches, mark] };
}

/**
 * After a revert dropped messages: a switch that came after them stays (the model is still the
 * one switched to) and now sits at the conversation's end.
 */
function withSwitchesWithin(state: LiveConversation): LiveConversation {
  const users = userMessages(state);
  if (state.modelSwitches.every((mark) => mark.afterInputs <= users)) return state;
  const modelSwitches = state.modelSwitches.map((mark) =>
    mark.afterInputs <= users ? mark : { ...mark, afterInputs: users },
  );
  return { ...state, modelSwitches };
}

function userMessages(state: LiveConversation): number {
  return state.conversation.messages.filter((message) => message.role === "user").length;
}

function withoutQueued(state: LiveConversation, inputId: string): LiveConversation {
  const queued = state.queued.filter((input) => input.inputId !== inputId);
  return queued.length === state.queued.length ? state : { ...state, queued };
}
