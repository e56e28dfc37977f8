/**
 * One open session, live: its snapshot (`client.live`, what the sidecar folds from its
 * transcript: a long session's transcript is ten times its size and its fold would cost the
 * page), drawn once it and the session's info have come, then the events after its last seq as they come, so nothing
 * is lost or doubled across a reload (the sidecar gives a subscription that joins mid-part
 * what the part has streamed so far, as one delta, before the part's next ones). A subagent's
 * child is read from its transcript, through its parent.
 * Events are folded as they arrive but drawn at most once per animation frame: a burst of
 * deltas costs one render, not one per delta.
 */
import {
  type BridgeClient,
  type CanonicalEvent,
  type LiveConversation,
  liveConversationOf,
  reduceLive,
} from "opencode-bridge/client";
import { useCallback, useEffect, useState } from "preact/hooks";
import type { OpenTarget } from "./open-session-url.js";

/** Drawn within this bound even where animation frames are paused (a hidden tab). */
const FLUSH_FALLBACK_MS = 100;

export interface LiveSession {
  live: LiveConversation | undefined;
  /** Why the session could not be read (shown instead of the conversation). */
  error: string | undefined;
  /** Reads the session again from its transcript (after an error). */
  retry: () => void;
}

/** What the hook keeps: a session's state, with the id of the session it is of. */
interface Shown extends Omit<LiveSession, "retry"> {
  of: string | undefined;
}

const NOTHING: Shown = { of: undefined, live: undefined, error: undefined };

export function useLiveSession(client: BridgeClient, target: OpenTarget | undefined): LiveSession {
  const [state, setState] = useState<Shown>(NOTHING);
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => setAttempt((count) => count + 1), []);
  const sessionId = target?.sessionId;
  const parentId = target?.parentId;
  useEffect(() => {
    setState({ ...NOTHING, of: sessionId });
    if (sessionId === undefined) return;
    const abort = new AbortController();
    const feed = new FrameBatcher((live) => {
      setState({ of: sessionId, live, error: undefined });
    });
    follow(
      client,
      { sessionId, ...(parentId === undefined ? {} : { parentId }) },
      feed,
      abort.signal,
    ).catch((error: unknown) => {
      if (abort.signal.aborted) return;
      setState((previous) => ({ ...previous, of: sessionId, error: describe(error) }));
    });
    return () => {
      abort.abort();
      feed.cancel();
    };
    // `attempt` is read so that a retry runs the effect again.
  }, [client, sessionId, parentId, attempt]);
  // Until the effect has run for a newly opened session, the state is the last one's: not shown.
  const { of: _of, ...shown } = state.of === sessionId ? state : NOTHING;
  return { ...shown, retry };
}

async function follow(
  client: BridgeClient,
  { sessionId, parentId }: OpenTarget,
  feed: FrameBatcher,
  signal: AbortSignal,
): Promise<void> {
  if (parentId !== undefined) {
    const kept = await client.childTranscript(parentId, sessionId, { signal });
    const live = liveConversationOf(sessionId, kept);
    feed.start(live);
    await followAfter(client, sessionId, live, feed, signal);
    return;
  }
  // A kept session (after a restart) is opened on demand by the read of its info (the store
  // answers its snapshot meanwhile). Both are awaited before it is drawn: drawn earlier, the
  // panels it shows (context, todos, MCP) asked the sidecar about a session it was still
  // opening, and were answered 502 on a clean clone.
  const [live, info] = await Promise.all([
    client.live(sessionId, { signal }),
    client.getSession(sessionId, { signal }),
  ]);
  feed.start(live);
  // Its directory is gone: the sidecar does not open it, there is nothing live to follow.
  if (info.directoryMissing === true) return;
  await followAfter(client, sessionId, live, feed, signal);
}

async function followAfter(
  client: BridgeClient,
  sessionId: string,
  live: LiveConversation,
  feed: FrameBatcher,
  signal: AbortSignal,
): Promise<void> {
  const events = client.subscribe(sessionId, { after: live.conversation.lastSeq, signal });
  for await (const event of events) feed.push(event);
}

/** Folds events at once, draws the latest state once per frame. */
class FrameBatcher {
  #live: LiveConversation | undefined;
  #frame: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #draw: (live: LiveConversation) => void;

  constructor(draw: (live: LiveConversation) => void) {
    this.#draw = draw;
  }

  start(live: LiveConversation): void {
    this.#live = live;
    this.#draw(live);
  }

  push(event: CanonicalEvent): void {
    if (this.#live === undefined) return;
    this.#live = reduceLive(this.#live, event);
    if (this.#frame !== undefined) return;
    this.#frame = requestAnimationFrame(() => this.#flush());
    this.#timer = setTimeout(() => this.#flush(), FLUSH_FALLBACK_MS);
  }

  cancel(): void {
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame);
    clearTimeout(this.#timer);
    this.#frame = undefined;
  }

  #flush(): void {
    this.cancel();
    if (this.#live !== undefined) this.#draw(this.#live);
  }
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
