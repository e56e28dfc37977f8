/**
 * Whether an element has come near the viewport yet (and stays true once it has): for work
 * worth doing only for what is seen. The review panel can hold 200 diffs open at once, and
 * highlighting all of them on opening it would hold the page for a second; each is highlighted
 * as it scrolls near instead. Without IntersectionObserver, true at once.
 */
import type { RefObject } from "preact";
import { useEffect, useState } from "preact/hooks";

/**
 * How far outside the viewport counts as near: a screen's worth of the page's own scroll,
 * coloured before it shows. (Inside a scrolling panel the panel's edge clips it: there an
 * element is near as it scrolls into the panel's view.)
 */
const NEAR_MARGIN = "600px";

export function useNearViewport(ref: RefObject<Element | null>): boolean {
  const [near, setNear] = useState(typeof IntersectionObserver === "undefined");
  useEffect(() => {
    const element = ref.current;
    if (near || element === null) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          setNear(true);
          observer.disconnect();
        }
      },
      { rootMargin: NEAR_MARGIN },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, near]);
  return near;
}
