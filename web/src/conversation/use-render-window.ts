/**
 * The window of a conversation the view draws (see render-window), kept while the session is
 * open: chosen once, when its messages first come (a session opened again, a view made again
 * for another session, chooses anew); new messages are drawn as they come, since the window
 * only limits how far back; it grows backwards a chunk at a time. What the reader was looking
 * at stays where it was on screen as earlier turns are put above it: Chromium's scroll
 * anchoring does that by itself, and the position is also set here from the anchor's own
 * movement, which is a no-op once anchoring held and the fix where it did not (a scroller
 * at its very top has no anchor).
 */
import type { Message } from "opencode-bridge/client";
import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { renderBudget } from "./render-budget.js";
import { fitStart, type Weigh, windowStart } from "./render-window.js";

export interface RenderWindow {
  /** The index of the first message drawn. */
  start: number;
  /** How many messages before it would be drawn. */
  hidden: number;
  /** What the last growth showed, for a screen reader ("" before any). */
  announcement: string;
  /**
   * Draws the next chunk of earlier turns, keeping `anchor` (an element drawn now) where it
   * is on screen; `fromButton`: the reader asked with the button, whose focus goes to the
   * conversation once there is nothing earlier left (the button is gone).
   */
  showEarlier: (anchor: Element | null, fromButton: boolean) => void;
}

interface Kept {
  anchor: Element | null;
  top: number;
  fromButton: boolean;
}

export function useRenderWindow(
  messages: readonly Message[],
  weigh: Weigh,
  scroller: { current: HTMLElement | null },
): RenderWindow {
  const budget = useMemo(renderBudget, []);
  const chosen = useRef<number | undefined>(undefined);
  if (chosen.current === undefined && messages.length > 0) {
    chosen.current = windowStart(messages, messages.length, budget, weigh);
  }
  const [grown, setGrown] = useState<number | undefined>(undefined);
  const [announcement, setAnnouncement] = useState("");
  const start = fitStart(messages, grown ?? chosen.current ?? 0, weigh);
  const kept = useRef<Kept | undefined>(undefined);

  useLayoutEffect(() => {
    const was = kept.current;
    kept.current = undefined;
    const element = scroller.current;
    if (was === undefined || element === null) return;
    if (was.anchor?.isConnected) {
      const moved = was.anchor.getBoundingClientRect().top - was.top;
      if (Math.abs(moved) >= 1) element.scrollTop += moved;
    }
    if (was.fromButton && start === 0) element.focus({ preventScroll: true });
  }, [start, scroller]);

  const showEarlier = (anchor: Element | null, fromButton: boolean) => {
    if (start === 0) return;
    const next = windowStart(messages, start, budget, weigh);
    const shown = drawnCount(messages.slice(next, start), weigh);
    const left = drawnCount(messages.slice(0, next), weigh);
    kept.current = { anchor, top: anchor?.getBoundingClientRect().top ?? 0, fromButton };
    setGrown(next);
    setAnnouncement(
      `${shown} earlier ${shown === 1 ? "message" : "messages"} shown` +
        (left === 0 ? ", from the start of the conversation" : `, ${left} more before them`),
    );
  };

  return { start, hidden: drawnCount(messages.slice(0, start), weigh), announcement, showEarlier };
}

function drawnCount(messages: readonly Message[], weigh: Weigh): number {
  return messages.filter((message) => weigh(message) > 0).length;
}
