/**
 * What the page needs at once to know whether it runs through a relay, without loading the
 * remote pieces (Noise, the tunnel: a fifth of the chat's size, which direct mode never needs;
 * remote-app.tsx loads them): a pairing link in the address bar (`ocb pair`'s link, based on
 * the relay that serves this page), or a pairing this browser keeps.
 *
 * The link is taken from the address bar at once, so its one-time secret is not bookmarked,
 * shared, or left in the history; the page holds it in memory until it pairs.
 */
// Not through remote-library.ts, which the lazy chunk starts from: this small module only.
import { isPairingLink } from "../../../src/remote/pairing-link.js";

/** Where the kept pairing lives in this origin's localStorage (kept-pairing.ts). */
export const PAIRING_KEY = "ocb.pairedSidecar";

/** The whole link when the page was opened with a pairing fragment (then removed from the URL). */
export function takePairingLink(): string | undefined {
  const link = location.href;
  if (!isPairingLink(link)) return undefined;
  history.replaceState(null, "", `${location.pathname}${location.search}`);
  return link;
}

export function hasKeptPairing(): boolean {
  return localStorage.getItem(PAIRING_KEY) !== null;
}
