/**
 * At the top of a conversation drawn from part-way (see use-render-window): the button that
 * draws the earlier messages, for the keyboard, a screen reader or anyone who does not scroll;
 * it is also what tells the conversation the reader came near its top (an IntersectionObserver
 * on it, watched anew after each growth, so that a chunk too short to push it out of reach
 * is followed by the next).
 */
import { useEffect, useRef } from "preact/hooks";

/** How close (px) to the top of what is drawn the reader comes before earlier turns are drawn. */
const NEAR_TOP_PX = 300;

export function EarlierMessages(props: {
  hidden: number;
  scroller: { current: HTMLElement | null };
  /** Draws more, keeping `anchor` (the first message drawn now) where it is on screen. */
  onShow: (anchor: Element | null, fromButton: boolean) => void;
}) {
  const bar = useRef<HTMLDivElement>(null);
  const onShow = useRef(props.onShow);
  onShow.current = props.onShow;
  const { hidden, scroller } = props;
  useEffect(() => {
    const element = bar.current;
    const root = scroller.current;
    // `hidden` is read so that the observer is made anew after each growth: its first report
    // says whether the top is still in reach.
    if (element === null || root === null || hidden === 0) return;
    const watcher = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          onShow.current(element.nextElementSibling, false);
        }
      },
      { root, rootMargin: `${NEAR_TOP_PX}px 0px 0px 0px` },
    );
    watcher.observe(element);
    return () => watcher.disconnect();
  }, [hidden, scroller]);
  return (
    <div class="earlier-messages" ref={bar}>
      <button
        type="button"
        data-testid="show-earlier"
        onClick={() => props.onShow(bar.current?.nextElementSibling ?? null, true)}
      >
        Show earlier messages ({hidden})
      </button>
    </div>
  );
}
