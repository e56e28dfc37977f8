/**
 * What the runtime needs from a way of running turns. A backend owns the upstream side of
 * one session (its native streams, prompting, interrupting) and hands every canonical event
 * it derives to the runtime's sink; the runtime owns everything that is the same for all of
 * them (numbering, turns, the watchdog, the queue it emulates where a backend has none).
 */

import { randomUUID } from "node:crypto";
import type { CanonicalEvent, ModelRef, Todo } from "../events/canonical.js";
import type { DeltaStats } from "../events/delta-stats.js";
import type { Logger } from "../util/logger.js";
import type { Attachment } from "./attachments.js";
import type { Capabilities } from "./capabilities.js";
import type { SessionChanges, VcsStatus } from "./file-changes.js";
import type { Terminal, TerminalSize } from "./terminal.js";

export type BackendKind = "serve" | "serve-legacy" | "subprocess";

export const BACKEND_KINDS: readonly BackendKind[] = ["serve", "serve-legacy", "subprocess"];

/** One input handed to the backend. */
export interface PromptRequest {
  text: string;
  /** How the input was sent; a backend without native steer never gets `steer` while busy. */
  delivery: "steer" | "queue";
  /**
   * The bridge's id for the input, when the runtime minted one (inputs it held back, and
   * backends whose server names no input id). The backend must use it as the `inputId`.
   */
  inputId?: string;
  /** The runtime already published `input.admitted` for it (it held the input back). */
  announced?: boolean;
  /** Resolved attachments (`resolveAttachments`): inside the directory, sized, typed. */
  files?: Attachment[];
  agents?: string[];
  signal?: AbortSignal;
}

/** An answer to a permission ask. */
export interface PermissionReply {
  requestId: string;
  reply: "once" | "always" | "reject";
  /** With `reject`: tells the model why (OpenCode passes it on). */
  message?: string;
}

export interface SessionBackend {
  readonly kind: BackendKind;
  readonly capabilities: Capabilities;
  /** The upstream OpenCode session id, once there is one (a subprocess session has none before its first turn). */
  readonly upstreamId: string | undefined;
  /** Resolves once the native streams are connected: what a prompt sent earlier does could be missed. */
  ready(signal?: AbortSignal): Promise<void>;
  /** Throws a UsageError for an input this backend cannot take (before anything is sent). */
  check(request: Omit<PromptRequest, "signal">): void;
  /** Hands an input upstream; resolves with its input id once the server took it. */
  prompt(request: PromptRequest): Promise<{ inputId: string }>;
  /**
   * Mints the id of a new input, where the server admits an id once: a prompt sent again with
   * it (its answer was lost) is not admitted twice. Absent where a repeat could run twice.
   */
  idempotentInputId?(): string;
  /** Asks the upstream run to stop; the backend publishes the turn's end. */
  interrupt(signal?: AbortSignal): Promise<void>;
  /** Answers a permission ask (the server's `permission.replied`, or the backend's own, follows). */
  replyPermission(reply: PermissionReply, signal?: AbortSignal): Promise<void>;
  /** Answers a question: the chosen labels, one list per question asked. */
  answerQuestion(requestId: string, answers: string[][], signal?: AbortSignal): Promise<void>;
  /** Declines a question. */
  rejectQuestion(requestId: string, signal?: AbortSignal): Promise<void>;
  /** The model of the following steps (or turns). */
  switchModel(model: ModelRef, signal?: AbortSignal): Promise<void>;
  /**
   * Undo (capabilities.revert): takes the session back to before `inputId`, the files that
   * input and every one after it changed put back; then the backend publishes
   * `session.reverted`. The next prompt makes it final. Only while nothing runs (the runtime
   * checks).
   */
  revert?(inputId: string, signal?: AbortSignal): Promise<void>;
  /**
   * Redo: takes back the undo no prompt has followed yet, then publishes `session.unreverted`.
   * Throws a UsageError when there is none.
   */
  unrevert?(signal?: AbortSignal): Promise<void>;
  /**
   * The agent of the following steps (capabilities.switchAgent): one of the directory's
   * pickable agents (`listAgents`), else a UsageError naming them. The server says so on its
   * stream (`agent.switched`).
   */
  switchAgent?(agent: string, signal?: AbortSignal): Promise<void>;
  /**
   * The prompt of slash command `name` with `args` (capabilities.commands), which the runtime
   * sends as any input; a UsageError for a name the location does not have.
   */
  commandPrompt?(name: string, args: string, signal?: AbortSignal): Promise<string>;
  /**
   * Compacts the session's history into a summary (capabilities.compact); resolves once it is
   * done. Only while nothing runs (the runtime checks). The server's stream says so
   * (`session.compacted`).
   */
  compact?(signal?: AbortSignal): Promise<void>;
  /**
   * What the turns of `inputIds` changed (the whole session's without), with each file's diff
   * (capabilities.changes). The backend also publishes `files.changed` at a turn's end.
   */
  changes?(scope: { inputIds?: readonly string[] }, signal?: AbortSignal): Promise<SessionChanges>;
  /** The working tree of the session's directory against its last commit (capabilities.changes). */
  vcsStatus?(signal?: AbortSignal): Promise<VcsStatus>;
  /** The context window of `model` in tokens, where the server's catalog gives one. */
  contextLimit?(model: ModelRef, signal?: AbortSignal): Promise<number | undefined>;
  /** The session's todo list as the agent last wrote it (capabilities.todos). */
  todos?(signal?: AbortSignal): Promise<Todo[]>;
  /**
   * A terminal in the session directory (capabilities.terminal). The backend closes the ones
   * still open when it closes, so no shell outlives the session.
   */
  openTerminal?(options: { size?: TerminalSize; signal?: AbortSignal }): Promise<Terminal>;
  /**
   * The runtime ended the running turn itself (the watchdog fired): forget it, so that late
   * native events do not end it twice, and stop the upstream run. Resolves once it is stopped.
   */
  abandonTurn(): Promise<void>;
  /** Stops following the session; the upstream session is kept. */
  close(): Promise<void>;
  /**
   * The managed server was restarted after a crash: streams that may have reached it while it
   * was starting connect again now (a backend without such streams need not implement it).
   */
  serverRestarted?(): void;
  /** What the backend's deltas could not hand out whole (a backend without deltas has none). */
  deltaStats?(): DeltaStats;
}

/** A backend that can undo and redo (`capabilities.revert`). */
export type HistoryBackend = SessionBackend & Required<Pick<SessionBackend, "revert" | "unrevert">>;

export function hasHistory(backend: SessionBackend): backend is HistoryBackend {
  return backend.revert !== undefined && backend.unrevert !== undefined;
}

/** What the runtime gives a backend when it makes one. */
export interface BackendContext {
  /** The bridge's id of the session: every event the backend publishes carries it. */
  sessionId: string;
  directory: string;
  /** Receives each canonical event, in order. */
  sink: (event: CanonicalEvent) => void;
  /**
   * An adopted session (the bridge restarted): the events kept so far and the upstream cursor
   * they were read up to. A backend with durable resume carries on from there.
   */
  resume?: { events: readonly CanonicalEvent[]; cursor: string | undefined };
  /** Receives the canonical events of a subagent's child session (their `sessionId` is the child's). */
  childSink: (event: CanonicalEvent) => void;
  /**
   * Told when the native streams stop reaching the server (after each failed attempt to
   * reconnect) and when they reach it again. The streams reconnect for as long as the session
   * is open; the runtime decides what a running turn does meanwhile.
   */
  connection: (connection: BackendConnection) => void;
  logger: Logger;
}

/** How a backend's native streams fare: connected, or failing to reconnect `attempt` times in a row. */
export type BackendConnection =
  | { state: "connected" }
  | { state: "reconnecting"; attempt: number; reason: string };

/** A bridge-minted input id, for inputs whose server names none (or not yet). */
export function mintInputId(): string {
  return `in_${randomUUID()}`;
}
