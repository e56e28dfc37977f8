/**
 * While the tab is hidden: when the open session's turn ends or an ask starts waiting, the tab
 * says it needs the reader (needs-you.ts) and, if they asked for it, the browser notifies them;
 * a click on the notification brings the tab back with that session open.
 */
import type { LiveConversation } from "opencode-bridge/client";
import { useEffect, useRef } from "preact/hooks";
import { awayChange, type Seen, seenOf } from "./away-change.js";
import { markNeedsYou } from "./needs-you.js";
import { notifying } from "./notify-setting.js";

const SAID = {
  asked: "An ask is waiting for your answer.",
  ended: "The turn ended.",
} as const;

export function useAwayAlerts(
  live: LiveConversation | undefined,
  sessionLabel: string,
  open: (sessionId: string) => void,
): void {
  const seen = useRef<Seen | undefined>(undefined);
  useEffect(() => {
    if (live === undefined) return;
    const now = seenOf(live);
    const change = awayChange(seen.current, now);
    seen.current = now;
    if (change === undefined || !document.hidden) return;
    markNeedsYou();
    if (!notifying()) return;
    const note = new Notification(`${sessionLabel} needs you`, {
      body: SAID[change],
      // One notification a session: a newer one replaces it.
      tag: now.sessionId,
    });
    note.onclick = () => {
      window.focus();
      open(now.sessionId);
      note.close();
    };
  }, [live, sessionLabel, open]);
}
