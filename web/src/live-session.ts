/**
 * One open session, live: its transcript folded into a `LiveConversation`, then the events
 * after the transcript's last seq as they come, so nothing is lost or doubled across a reload.
 * Events are folded as they arrive but drawn at most once per animation frame: a burst of
 * deltas costs one render, not one per delta.
 */
import {
  type BridgeClient,
  type CanonicalEvent,
  emptyLiveConversation,
  type LiveConversation,
  reduceLive,
} from "opencode-bridge/client";
import { useEffect, useState } from "preact/hooks";

/** Drawn within this bound even where animation frames are paused (a hidden tab). */
const FLUSH_FALLBACK_MS = 100;

export interface LiveSession {
  live: LiveConversation | undefined;
  /** Why the session could not be read (shown instead of the conversation). */
  error: string | undefined;
}

export function useLiveSession(client: BridgeClient, sessionId: string | undefined): LiveSession {
  const [state, setState] = useState<LiveSession>({ live: undefined, error: undefined });
  useEffect(() => {
    if (sessionId === undefined) {
      setState({ live: undefined, error: undefined });
      return;
    }
    const abort = new AbortController();
    const feed = new FrameBatcher((live) => setState({ live, error: undefined }));
    setState({ live: undefined, error: undefined });
    follow(client, sessionId, feed, abort.signal).catch((error: unknown) => {
      if (abort.signal.aborted) return;
      setState((previous) => ({ live: previous.live, error: describe(error) }));
    });
    return () => {
      abort.abort();
      feed.cancel();
    };
  }, [client, sessionId]);
  return state;
}

async function follow(
  client: BridgeClient,
  sessionId: string,
  feed: FrameBatcher,
  signal: AbortSignal,
): Promise<void> {
  const kept = await client.transcript(sessionId, { signal });
  let live = emptyLiveConversation(sessionId);
  for (const event of kept) live = reduceLive(live, event);
  feed.start(live);
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
