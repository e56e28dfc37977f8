/**
 * Following the end of the conversation. The view stays at the end while the reader is there;
 * scrolled up, it stays where they are and says newer content has come (`behind`, shown as
 * "Jump to latest"); a send of their own takes them to the end (`followRequest` changes).
 *
 * Following holds until the reader scrolls up themselves. The content's height changes after
 * a scroll too (messages out of view are not laid out until scrolled to: a message that came
 * while the reader was up is measured only once the jump reaches it), so the content's size is
 * watched, and a scroll that is not upward never ends following.
 */
import type { LiveConversation } from "opencode-bridge/client";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";

/** How close to the end (px) still counts as "at the end" for following new output. */
const FOLLOW_SLACK_PX = 80;

export interface FollowScroll {
  /** The scrolling element's ref. */
  scroller: { current: HTMLDivElement | null };
  /** The ref of the element inside it that holds the content (watched for its size). */
  content: { current: HTMLDivElement | null };
  /** Newer content came while the reader was scrolled up. */
  behind: boolean;
  onScroll: () => void;
  /** Scrolls to the end and follows it again. */
  jumpToLatest: () => void;
}

export function useFollowScroll(
  live: LiveConversation | undefined,
  followRequest: number,
): FollowScroll {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const lastTop = useRef(0);
  const shown = useRef(live);
  const [behind, setBehind] = useState(false);
  const toEnd = useCallback(() => {
    const element = scroller.current;
    if (element !== null) element.scrollTop = element.scrollHeight;
  }, []);
  const jumpToLatest = useCallback(() => {
    following.current = true;
    setBehind(false);
    toEnd();
  }, [toEnd]);
  // A send of the reader's own: to the end, whatever they were reading.
  useLayoutEffect(() => {
    if (followRequest > 0) jumpToLatest();
  }, [followRequest, jumpToLatest]);
  useLayoutEffect(() => {
    const changed = live !== shown.current;
    // The first state of a session is not "newer content".
    const first = shown.current === undefined;
    shown.current = live;
    if (following.current) toEnd();
    else if (changed && !first) setBehind(true);
  });
  useEffect(() => {
    const element = content.current;
    if (element === null) return;
    const watcher = new ResizeObserver(() => {
      if (following.current) toEnd();
    });
    watcher.observe(element);
    return () => watcher.disconnect();
  }, [toEnd]);
  const onScroll = useCallback(() => {
    const element = scroller.current;
    if (element === null) return;
    const atEnd = element.scrollHeight - element.scrollTop - element.clientHeight < FOLLOW_SLACK_PX;
    const up = element.scrollTop < lastTop.current;
    lastTop.current = element.scrollTop;
    if (atEnd) {
      following.current = true;
      setBehind(false);
    } else if (up) {
      following.current = false;
    }
  }, []);
  return { scroller, content, behind, onScroll, jumpToLatest };
}
