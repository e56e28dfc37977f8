/**
 * Every session the page knows (the open one's live conversation, the side list's polled
 * entries): when one's turn ends or an ask starts waiting while the tab is hidden, the tab says
 * it needs the reader (needs-you.ts) and, if they asked for it, the browser notifies them; a
 * click on the notification brings the tab back with that session open. A turn that ends in a
 * session that is not open is also kept as "finished" for the side list, hidden tab or not,
 * until that session is opened: the reader looking at another session did not see it end.
 */
import type { LiveConversation, SessionInfo } from "opencode-bridge/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { type AwayChange, awayChanges, looksNow, type Seen } from "./away-change.js";
import { markNeedsYou } from "./needs-you.js";
import { notifying } from "./notify-setting.js";

const SAID: Record<AwayChange, string> = {
  asked: "An ask is waiting for your answer.",
  ended: "The turn ended.",
};

export interface AwayAlertsInput {
  /** The open session's live conversation (ahead of the list's poll). */
  live: LiveConversation | undefined;
  /** The sessions the side list shows, and the open one's entry. */
  listed: readonly SessionInfo[];
  /** The session open now (the list's entry of it: a child's parent). */
  openId: string | undefined;
  /** A session's name, for the notification (text: the browser never reads it as markup). */
  labelOf: (sessionId: string) => string;
  open: (sessionId: string) => void;
}

/** Returns the sessions whose turn ended, unseen, since they were last open. */
export function useAwayAlerts(input: AwayAlertsInput): ReadonlySet<string> {
  const { live, listed, openId } = input;
  const seen = useRef<ReadonlyMap<string, Seen>>(new Map());
  const [finished, setFinished] = useState<ReadonlySet<string>>(new Set());
  // Read at a change, not a reason to fold again.
  const callbacks = useRef(input);
  callbacks.current = input;

  useEffect(() => {
    const fold = awayChanges(seen.current, looksNow(listed, live));
    seen.current = fold.seen;
    // The open session's end (or its open child's) is seen where it happens.
    const shown = new Set([openId, live?.conversation.sessionId]);
    const ended = fold.changes
      .filter(({ sessionId, change }) => change === "ended" && !shown.has(sessionId))
      .map(({ sessionId }) => sessionId);
    if (ended.length > 0) setFinished((old) => new Set([...old, ...ended]));
    if (!document.hidden) return;
    for (const { sessionId, change } of fold.changes) {
      markNeedsYou();
      if (notifying()) notify(sessionId, change, callbacks.current);
    }
  }, [listed, live, openId]);

  // Opened: its end is seen now.
  useEffect(() => {
    if (openId === undefined) return;
    setFinished((old) => {
      if (!old.has(openId)) return old;
      const next = new Set(old);
      next.delete(openId);
      return next;
    });
  }, [openId]);

  return finished;
}

function notify(
  sessionId: string,
  change: AwayChange,
  { labelOf, open }: Pick<AwayAlertsInput, "labelOf" | "open">,
): void {
  const note = new Notification(`${labelOf(sessionId)} needs you`, {
    body: SAID[change],
    // One notification a session: a newer one replaces it.
    tag: sessionId,
  });
  note.onclick = () => {
    window.focus();
    open(sessionId);
    note.close();
  };
}
