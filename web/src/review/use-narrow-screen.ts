/** Whether the window is a phone's width (the stylesheets' own breakpoint), kept current. */
import { useEffect, useState } from "preact/hooks";

const NARROW = "(max-width: 760px)";

export function useNarrowScreen(): boolean {
  const [narrow, setNarrow] = useState(() => matchMedia(NARROW).matches);
  useEffect(() => {
    const query = matchMedia(NARROW);
    const follow = () => setNarrow(query.matches);
    query.addEventListener("change", follow);
    follow();
    return () => query.removeEventListener("change", follow);
  }, []);
  return narrow;
}
