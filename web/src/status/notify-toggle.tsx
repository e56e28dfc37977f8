/**
 * "Notify me", in the status popover: asks the browser's permission when pressed (a gesture:
 * never on load), then a hidden tab is notified when a turn ends or an ask waits.
 */
import { canNotify, useNotifySetting } from "./notify-setting.js";

export function NotifyToggle(props: { onError: (error: unknown) => void }) {
  const { on, toggle } = useNotifySetting(props.onError);
  if (!canNotify()) {
    return <p class="muted">This browser cannot notify; the tab's title still says so.</p>;
  }
  return (
    <button
      type="button"
      class={on ? "notify-toggle on" : "notify-toggle"}
      data-testid="notify-toggle"
      aria-pressed={on}
      onClick={() => void toggle()}
    >
      <BellIcon on={on} />
      {on ? "Notifying you" : "Notify me"}
    </button>
  );
}

/** Drawn, not an emoji: not every system has a font with one. */
function BellIcon(props: { on: boolean }) {
  return (
    <svg class="bell" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      <path
        d="M8 1.5a4 4 0 0 0-4 4v3L2.5 11h11L12 8.5v-3a4 4 0 0 0-4-4ZM6.5 12.5a1.5 1.5 0 0 0 3 0"
        fill={props.on ? "currentColor" : "none"}
        stroke="currentColor"
        stroke-width="1.3"
        stroke-linejoin="round"
      />
      {props.on ? null : <path d="M2 2l12 12" stroke="currentColor" stroke-width="1.3" />}
    </svg>
  );
}
