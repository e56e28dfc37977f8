/**
 * What happened in a session between two looks at it that the reader, away, should hear of:
 * an ask started waiting, or a turn ended. Pure, so that it is tested without a browser.
 */
import type { LiveConversation } from "opencode-bridge/client";

/** What a look at the session saw: a change from it is what happened since. */
export interface Seen {
  sessionId: string;
  running: string | undefined;
  asks: ReadonlySet<string>;
}

export function seenOf(live: LiveConversation): Seen {
  return {
    sessionId: live.conversation.sessionId,
    running: live.running,
    asks: new Set(live.pendingAsks.map((ask) => ask.requestId)),
  };
}

/** An ask before a turn's end: an ask waits on the reader, an ended turn only invites them. */
export function awayChange(before: Seen | undefined, now: Seen): "asked" | "ended" | undefined {
  // The first look at a session: what it holds happened before, not while the reader was away.
  if (before === undefined || before.sessionId !== now.sessionId) return undefined;
  if ([...now.asks].some((id) => !before.asks.has(id))) return "asked";
  // Another turn running now (a queued one) means the one before ended too.
  if (before.running !== undefined && now.running !== before.running) return "ended";
  return undefined;
}
