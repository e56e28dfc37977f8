/**
 * What happened in a session between two looks at it that the reader, away, should hear of:
 * an ask started waiting, or a turn ended. A look is the open session's live conversation or a
 * listed session's entry (the side list's poll): both are folded the same way, so the open
 * session and the others say the same. Pure, so that it is tested without a browser.
 */
import type { LiveConversation, SessionInfo } from "opencode-bridge/client";

export type AwayChange = "asked" | "ended";

/** What a look at the session saw: a change from it is what happened since. */
export interface Seen {
  sessionId: string;
  /**
   * The turn running (its id), `true` when a turn runs but the look does not say which (a
   * listed entry), or undefined when none runs.
   */
  running: string | true | undefined;
  asks: ReadonlySet<string>;
  /** The seq of the session's last durable event the look reflects: which of two is newer. */
  seq: number;
}

export function seenOf(live: LiveConversation): Seen {
  return {
    sessionId: live.conversation.sessionId,
    running: live.running,
    asks: new Set(live.pendingAsks.map((ask) => ask.requestId)),
    seq: live.conversation.lastSeq,
  };
}

export function seenOfListed(session: SessionInfo): Seen {
  return {
    sessionId: session.id,
    running: session.running ? true : undefined,
    asks: new Set((session.pendingAsks ?? []).map((ask) => ask.requestId)),
    seq: session.lastSeq,
  };
}

/** An ask before a turn's end: an ask waits on the reader, an ended turn only invites them. */
export function awayChange(before: Seen | undefined, now: Seen): AwayChange | undefined {
  // The first look at a session: what it holds happened before, not while the reader was away.
  if (before === undefined || before.sessionId !== now.sessionId) return undefined;
  // An older look (a poll that left before the stream's latest event) tells nothing new.
  if (now.seq < before.seq) return undefined;
  if ([...now.asks].some((id) => !before.asks.has(id))) return "asked";
  if (before.running === undefined) return undefined;
  if (now.running === undefined) return "ended";
  // Another turn running now (a queued one) means the one before ended too; a look that does
  // not name its turn cannot tell, and says nothing.
  const named = typeof before.running === "string" && typeof now.running === "string";
  return named && now.running !== before.running ? "ended" : undefined;
}

/** The looks at every session known now, and what changed in each since the looks before. */
export interface AwayFold {
  /** The looks to compare the next ones with (an older look keeps the newer one before it). */
  seen: ReadonlyMap<string, Seen>;
  changes: { sessionId: string; change: AwayChange }[];
}

/**
 * Folds a new set of looks into the ones before. A session first seen says nothing; a session
 * no longer seen (deleted, or out of the list's pages) is forgotten and says nothing.
 */
export function awayChanges(before: ReadonlyMap<string, Seen>, looks: Iterable<Seen>): AwayFold {
  const seen = new Map<string, Seen>();
  const changes: AwayFold["changes"] = [];
  for (const now of looks) {
    const old = before.get(now.sessionId);
    const change = awayChange(old, now);
    if (change !== undefined) changes.push({ sessionId: now.sessionId, change });
    seen.set(now.sessionId, old !== undefined && now.seq < old.seq ? old : now);
  }
  return { seen, changes };
}

/**
 * The looks at this moment: each listed session's entry (not a deleted one's), and the live conversation's look at
 * its session instead where it is not older (it names its turn, and is ahead of the poll).
 */
export function looksNow(
  listed: Iterable<SessionInfo>,
  live: LiveConversation | undefined,
): Seen[] {
  const looks = new Map<string, Seen>();
  for (const session of listed) {
    // A deleted session still listed (a poll that left before the delete) ended for good: the
    // end of its turn is the delete's, not news.
    if (session.state !== "killed") looks.set(session.id, seenOfListed(session));
  }
  if (live !== undefined) {
    const streamed = seenOf(live);
    const polled = looks.get(streamed.sessionId);
    if (polled === undefined || streamed.seq >= polled.seq) looks.set(streamed.sessionId, streamed);
  }
  return [...looks.values()];
}
