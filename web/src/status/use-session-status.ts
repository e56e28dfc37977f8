/**
 * What the status popover shows of the open session, read from the sidecar: its spending (own,
 * its subagents', the latest turn's) and context limit (`client.context`), its todo list before
 * any `todo.updated` came (`client.todos`), and its project's MCP servers (`client.mcpStatus`).
 * Read again when a step ends (the spending changed) and when the popover opens; every read is
 * bounded, and a failed read is said, not swallowed.
 */
import type {
  BridgeClient,
  LiveConversation,
  McpServerInfo,
  SessionContextView,
  SessionInfo,
  TodoItem,
} from "opencode-bridge/client";
import { useCallback, useEffect, useState } from "preact/hooks";
import { describe } from "../live-session.js";

const READ_BOUND_MS = 15_000;

export interface SessionStatus {
  context?: SessionContextView;
  /** Why the spending could not be read. */
  contextError?: string | undefined;
  /** The todo list as the sidecar had it when the session was opened. */
  todos?: TodoItem[];
  /** Undefined: not read (yet), or the session's server cannot say (`capabilities.mcpStatus`). */
  mcp?: McpServerInfo[];
  mcpError?: string | undefined;
  /** Reads it all again (the popover opening). */
  refresh: () => void;
}

interface Read extends Omit<SessionStatus, "refresh"> {
  of: string | undefined;
}

export function useSessionStatus(
  client: BridgeClient,
  sessionId: string | undefined,
  info: SessionInfo | undefined,
  live: LiveConversation | undefined,
): SessionStatus {
  const [read, setRead] = useState<Read>({ of: undefined });
  const [asked, setAsked] = useState(0);
  const refresh = useCallback(() => setAsked((count) => count + 1), []);
  // A step's end changes what was spent (a new `spent`); a turn's end closes the turn's count.
  const spent = live?.spent;
  const running = live?.running;
  // A session whose directory is gone is read only and never opened: nothing of it to ask.
  const readable = info !== undefined && info.directoryMissing !== true;
  const canTodos = readable && info?.capabilities?.todos === true;
  const canMcp = readable && info?.capabilities?.mcpStatus === true;
  const directory = info?.directory;
  useEffect(() => {
    if (sessionId === undefined || !readable) return;
    const abort = new AbortController();
    const options = { signal: abort.signal, timeoutMs: READ_BOUND_MS };
    const keep = keeper(abort.signal, sessionId, setRead);
    client.context(sessionId, options).then(
      (context) => keep({ context, contextError: undefined }),
      (error: unknown) => keep({ contextError: describe(error) }),
    );
    return () => abort.abort();
    // `spent`, `running` and `asked` are read so that a step's end, a turn's and a refresh read again.
  }, [client, sessionId, readable, spent, running, asked]);
  useEffect(() => {
    if (sessionId === undefined || !canTodos) return;
    const abort = new AbortController();
    client.todos(sessionId, { signal: abort.signal, timeoutMs: READ_BOUND_MS }).then(
      (todos) => keeper(abort.signal, sessionId, setRead)({ todos }),
      // The live list still comes with the next `todo.updated`: nothing to tell the reader.
      () => {},
    );
    return () => abort.abort();
  }, [client, sessionId, canTodos]);
  useEffect(() => {
    if (sessionId === undefined || !canMcp) return;
    const abort = new AbortController();
    const options = {
      signal: abort.signal,
      timeoutMs: READ_BOUND_MS,
      ...(directory === undefined ? {} : { directory }),
    };
    const keep = keeper(abort.signal, sessionId, setRead);
    client.mcpStatus(options).then(
      (mcp) => keep({ mcp, mcpError: undefined }),
      (error: unknown) => keep({ mcpError: describe(error) }),
    );
    return () => abort.abort();
    // `asked` is read so that opening the popover reads the servers' state again.
  }, [client, sessionId, canMcp, directory, asked]);
  const { of, ...shown } = read.of === sessionId ? read : { of: undefined };
  return { ...shown, refresh };
}

/** Keeps what a read of `sessionId` found, unless the read was abandoned (another session open). */
function keeper(
  signal: AbortSignal,
  sessionId: string,
  setRead: (update: (old: Read) => Read) => void,
): (part: Omit<Read, "of">) => void {
  return (part) => {
    if (signal.aborted) return;
    setRead((old) => ({ ...(old.of === sessionId ? old : {}), ...part, of: sessionId }));
  };
}
