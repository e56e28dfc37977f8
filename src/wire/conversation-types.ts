/** The shape of a materialised conversation: plain objects and arrays, JSON all the way down. */
import type {
  DurableEventData,
  ErrorInfo,
  Outcome,
  RevertedFile,
  Usage,
} from "../events/canonical.js";

export interface Conversation {
  sessionId: string;
  messages: Message[];
  /** The seq of the last stored event folded in (0 for none). */
  lastSeq: number;
  /** What an undo took out of `messages`, while a redo can still bring it back. */
  undone?: Undone;
  /** The latest compaction of the history, once there was one. */
  compacted?: Compacted;
  /** The session this one is a fork of, and the input it was forked before (`session.forked`). */
  forkedFrom?: ForkedFrom;
  /**
   * Where the session went on in a new OpenCode session after its own was lost
   * (`session.rehydrated`): a chat draws a divider after `afterMessages` messages.
   */
  rehydrations?: Rehydration[];
  /**
   * The user's own OpenCode session this one was imported from (`session.imported`): its first
   * `afterMessages` messages were made there, without the bridge.
   */
  imported?: Imported;
}

/** Where an imported session's history came from (`session.imported`). */
export interface Imported {
  upstreamId: string;
  /** How many of `messages` came from it. */
  afterMessages: number;
}

/** The origin of a fork: its messages before `inputId` are this session's first ones. */
export interface ForkedFrom {
  sessionId: string;
  inputId: string;
}

/** A continuation in a new OpenCode session (`session.rehydrated`). */
export interface Rehydration {
  previousUpstreamId: string;
  upstreamId: string;
  /** How many of `messages` came before it. */
  afterMessages: number;
}

/**
 * The history was compacted (`session.compacted`, or OpenCode's own `compaction.ended`): the
 * model no longer gets the first `messageCount` messages, only a summary of them (on
 * serve-legacy, the text of the last of them). A chat shows a divider after them.
 */
export interface Compacted {
  messageCount: number;
}

/**
 * The messages an undo (`session.reverted`) took out of the conversation, from its input on,
 * and the files it put back. A redo (`session.unreverted`) brings them back; the next input
 * makes the undo final and drops them.
 */
export interface Undone {
  inputId: string;
  messages: Message[];
  files: RevertedFile[];
  /** Files put back beyond those named. */
  moreFiles?: number;
}

export type Message = UserMessage | AssistantMessage;

/** An input the server admitted. */
export interface UserMessage {
  role: "user";
  inputId: string;
  /** The turn it started or joined, once known. */
  turnId?: string;
  text: string;
  files?: string[];
  /** Why it was dropped before it reached the model. */
  cancelled?: string;
  /** The model has it (`input.delivered`). */
  delivered?: true;
}

/**
 * What one turn produced; a turn that took a steer has one such message before the steer's
 * own and one after it (the parts after the steer answer it), the outcome on the last.
 */
export interface AssistantMessage {
  role: "assistant";
  turnId: string;
  parts: Part[];
  /** Absent while the turn runs. */
  outcome?: Outcome;
  usage?: Usage;
  error?: ErrorInfo;
}

export type Part =
  | TextPart
  | ReasoningPart
  | ToolPart
  | PermissionPart
  | QuestionPart
  | SubagentPart;

/** `text` is empty until the part has ended (deltas are not folded in). */
export interface TextPart {
  type: "text";
  partId: string;
  text: string;
}

export interface ReasoningPart {
  type: "reasoning";
  partId: string;
  text: string;
}

/** A tool call in its latest state; `input` is `{}` until the call is parsed. */
export interface ToolPart {
  type: "tool";
  callId: string;
  tool: string;
  input: Record<string, unknown>;
  state: "running" | "succeeded" | "failed";
  output?: string;
  title?: string;
  error?: ErrorInfo;
}

/** An approval asked for, with the reply once given. */
export type PermissionPart = {
  type: "permission";
  reply?: "once" | "always" | "reject";
} & DurableEventData["permission.asked"];

export type QuestionPart = {
  type: "question";
  state: "asked" | "replied" | "rejected";
  answers?: unknown[];
} & DurableEventData["question.asked"];

export type SubagentPart = {
  type: "subagent";
  state: "running" | "ended";
  result?: string;
} & DurableEventData["subagent.started"];
