/**
 * What each backend can do, in one object per backend. The runtime reads it to decide what to
 * emulate (a queue) and what to refuse; clients read it instead of guessing; the library guide's
 * table is generated from it (`npm run docs:capabilities`, scripts/capability-table.ts).
 */
import type { BackendKind } from "./backend.js";

export interface Capabilities {
  /** Text and reasoning arrive as `*.delta` events while they are written. */
  streamingDeltas: boolean;
  /** A tool call is seen while it runs (otherwise only once it settled: one cut short is never seen). */
  liveToolCalls: boolean;
  /** A `steer` input joins the running turn (otherwise it is queued or supersedes the turn). */
  nativeSteer: boolean;
  /** The server keeps a queue of inputs (otherwise the runtime holds them). */
  nativeQueue: boolean;
  /**
   * A queued input can be taken back before delivery (`Session.cancelInput`): the runtime
   * holds it, so it can drop it; one in the server's own queue cannot be reached.
   */
  cancelQueued: boolean;
  /** Events missed while disconnected are fetched again from the server's own cursor. */
  durableResume: boolean;
  /** Permission asks reach the client and wait for its answer. */
  permissions: boolean;
  /** The `question` tool's questions reach the client and wait for its answer. */
  questions: boolean;
  /** Image attachments reach the model. */
  images: boolean;
  /** The `task` tool's child sessions can be followed. */
  subagents: boolean;
  /** After an interrupt the same upstream session takes the next input. */
  interruptKeepsSession: boolean;
  /** The session can be reverted to before one of its inputs (`Session.revert`). */
  revert: boolean;
  /** The session's agent can be switched (`Session.switchAgent`), from one of `Bridge.agents()`. */
  switchAgent: boolean;
  /** A session can be forked before one of its inputs (`Bridge.forkSession`). */
  fork: boolean;
  /**
   * A session whose OpenCode session was lost can go on in a new one, primed with the
   * conversation so far (`Bridge.continueSession`).
   */
  rehydrate: boolean;
  /** Slash commands can be listed (`Bridge.commands()`) and run as a turn (`Session.runCommand`). */
  commands: boolean;
  /** The session's history can be compacted into a summary on demand (`Bridge.compactSession`). */
  compact: boolean;
  /** The MCP servers and their state can be listed (`Bridge.mcpStatus()`). */
  mcpStatus: boolean;
  /** The skills can be listed (`Bridge.skills()`). */
  skills: boolean;
  /**
   * The files a session and each of its turns changed, with diffs (`Session.changes`), its
   * working tree's status (`Session.vcsStatus`), and `files.changed` at the end of a turn.
   */
  changes: boolean;
  /** The agent's todo list is followed (`todo.updated`) and read (`Session.todos`). */
  todos: boolean;
  /** A terminal (a shell in the session directory) can be opened (`Session.openTerminal`). */
  terminal: boolean;
  /**
   * The user's own OpenCode sessions (`opencode run`, the TUI) can be listed
   * (`Bridge.upstreamSessions`) and imported with their history (`Bridge.importSession`).
   */
  importSessions: boolean;
}

export const BACKEND_CAPABILITIES: Readonly<Record<BackendKind, Capabilities>> = {
  serve: {
    streamingDeltas: true,
    liveToolCalls: true,
    nativeSteer: true,
    nativeQueue: true,
    // 1.18.33's /api has no route to take back a prompt it queued (only interrupt, which
    // stops the running turn too).
    cancelQueued: false,
    durableResume: true,
    permissions: true,
    questions: true,
    images: true,
    // 1.18.33's /api runtime has no `task` tool ("Unknown tool: task").
    subagents: false,
    interruptKeepsSession: true,
    // /api revert/stage + commit (but not to before the first message: see revert-input.ts).
    revert: true,
    // /api/session/{id}/agent.
    switchAgent: true,
    // A new /api session whose first prompt carries the conversation (see earlier-conversation.ts).
    fork: true,
    rehydrate: true,
    // Listed by `/command`, expanded by the bridge and sent as a prompt (see commands.ts).
    commands: true,
    // By the bridge (`Bridge.compactSession`): 1.18.33's `/api/session/{id}/compact` answers 503
    // ("not available yet"), and the legacy summarize compacts the legacy history, which `/api`
    // turns do not use. A summary turn, then a new OpenCode session primed with the summary.
    compact: true,
    // `/mcp` and `/skill` of the session's location.
    mcpStatus: true,
    skills: true,
    // Step snapshots name the files; /vcs/status and /vcs/diff count them (session-changes.ts).
    changes: true,
    // todo.updated on the live stream; GET /session/{id}/todo.
    todos: true,
    // /api/pty and its WebSocket.
    terminal: true,
    // GET /session lists them; their history is read from GET /session/{id}/message (1.18.33
    // keeps no /api event log of a legacy session) and told to the /api model on the next input.
    importSessions: true,
  },
  "serve-legacy": {
    streamingDeltas: true,
    liveToolCalls: true,
    // A prompt into a busy session is answered in a further step of the same busy period.
    nativeSteer: true,
    nativeQueue: false,
    cancelQueued: true,
    // `/event` has no cursor: what is missed while disconnected is gone.
    durableResume: false,
    permissions: true,
    questions: true,
    images: true,
    // Child sessions come on the same `/event` stream; their asks surface on the parent's turn.
    subagents: true,
    interruptKeepsSession: true,
    // Not built yet: the legacy `/session/{id}/revert` hides messages until the next prompt.
    revert: false,
    // Not built yet: the legacy surface takes the agent per prompt only.
    switchAgent: false,
    // Not built yet (legacy `POST /session/{id}/fork` copies messages; unverified here).
    fork: false,
    rehydrate: false,
    commands: true,
    // `/session/{id}/summarize`, with the session's model.
    compact: true,
    mcpStatus: true,
    skills: true,
    // Not built yet: the legacy `GET /session/{id}/diff` and `session.diff` would serve.
    changes: false,
    // todo.updated on `/event`; GET /session/{id}/todo.
    todos: true,
    // Not built yet: the legacy surface has /pty too, but only /api's was verified.
    terminal: false,
    // Not built yet: the legacy surface could follow such a session natively, but only the
    // serve backend's import (history from the messages, primer on the next input) was verified.
    importSessions: false,
  },
  subprocess: {
    // `opencode run --format json` prints each part once it is whole.
    streamingDeltas: false,
    liveToolCalls: false,
    nativeSteer: false,
    nativeQueue: false,
    cancelQueued: true,
    durableResume: false,
    // Without `--auto` every ask is rejected; with it every ask is allowed. Nobody is asked.
    permissions: false,
    questions: false,
    images: true,
    subagents: false,
    interruptKeepsSession: true,
    // `opencode run` has no revert.
    revert: false,
    // `opencode run --agent` is fixed for the process.
    switchAgent: false,
    // `opencode run` keeps no history of the bridge's to start from.
    fork: false,
    rehydrate: false,
    // No server to ask: `opencode run` has no command list, summarize, MCP or skill query.
    commands: false,
    compact: false,
    mcpStatus: false,
    skills: false,
    // `opencode run` has no server to ask.
    changes: false,
    todos: false,
    // `opencode run` starts no server to hold a PTY.
    terminal: false,
    // No server to list the sessions of a data directory.
    importSessions: false,
  },
};
