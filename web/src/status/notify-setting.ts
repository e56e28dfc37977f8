/**
 * Whether the reader asked for browser notifications ("Notify me"), kept in this browser. The
 * browser's permission is asked for from that click only (never on load), and both must hold.
 */
import { useCallback, useState } from "preact/hooks";

const KEY = "ocb.notify";

/** The browser has notifications (not every one does: an iPhone's Safari outside the home screen). */
export function canNotify(): boolean {
  return typeof Notification !== "undefined";
}

/** Notifications are on: asked for here, and allowed by the browser. */
export function notifying(): boolean {
  return canNotify() && Notification.permission === "granted" && localStorage.getItem(KEY) === "on";
}

export function useNotifySetting(onError: (error: unknown) => void): {
  on: boolean;
  toggle: () => Promise<void>;
} {
  const [on, setOn] = useState(notifying);
  const toggle = useCallback(async () => {
    if (notifying()) {
      localStorage.removeItem(KEY);
      setOn(false);
      return;
    }
    const permission =
      Notification.permission === "default"
        ? await Notification.requestPermission()
        : Notification.permission;
    if (permission !== "granted") {
      onError(
        new Error(
          "This browser blocks notifications from this page: allow them in the site's settings, then try again.",
        ),
      );
      return;
    }
    localStorage.setItem(KEY, "on");
    setOn(true);
  }, [onError]);
  return { on, toggle };
}
