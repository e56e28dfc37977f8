/**
 * The name a browser offers for itself when it pairs ("Chrome on Android"): what `ocb devices`
 * lists, so that its owner can tell their devices apart and revoke the right one.
 */

/** At most what the sidecar takes (64 characters). */
export const DEVICE_NAME_MAX = 64;

export function defaultDeviceName(userAgent: string): string {
  const browser = /\bEdg\//.test(userAgent)
    ? "Edge"
    : /\bFirefox\//.test(userAgent)
      ? "Firefox"
      : /Chrome\//.test(userAgent)
        ? "Chrome"
        : /\bSafari\//.test(userAgent)
          ? "Safari"
          : "A browser";
  const system = /\bAndroid\b/.test(userAgent)
    ? "Android"
    : /\b(iPhone|iPad|iPod)\b/.test(userAgent)
      ? "iOS"
      : /\bMac OS X\b/.test(userAgent)
        ? "macOS"
        : /\bWindows\b/.test(userAgent)
          ? "Windows"
          : /\bLinux\b/.test(userAgent)
            ? "Linux"
            : undefined;
  return system === undefined ? browser : `${browser} on ${system}`;
}
