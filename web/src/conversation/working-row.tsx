/**
 * The row at the end of a running turn: what it is doing and for how long. The time counts
 * from the turn's start as the sidecar recorded it, so a page opened mid-turn shows the
 * turn's age, not its own. It is a status (read out when what the agent does changes), with
 * the ticking time kept out of it: a screen reader would otherwise announce every second.
 */
import { useEffect, useState } from "preact/hooks";
import { elapsedText } from "./working-activity.js";

const TICK_MS = 1000;

export function WorkingRow(props: { activity: string; since: number | undefined }) {
  const now = useNow(props.since !== undefined);
  return (
    <div class="working-row" data-testid="working-row" role="status">
      <span class="working-spinner" aria-hidden="true" />
      <span data-testid="working-activity">{props.activity}…</span>
      {props.since === undefined ? null : (
        <span
          class="working-elapsed muted"
          data-testid="working-elapsed"
          data-since={props.since}
          aria-hidden="true"
        >
          {elapsedText(now - props.since)}
        </span>
      )}
    </div>
  );
}

/** The time now, again every second while `ticking`. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
