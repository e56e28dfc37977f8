/**
 * The address that opens this session on another device, built in the page and never sent
 * anywhere: this page's origin and path, and in the fragment (which no browser sends to a
 * server, nor puts in a Referer) the token and the open session. A ticket (`POST /v1/tickets`)
 * would not do: it opens one stream handshake within 30 s, while the chat's every call needs
 * the token, so the code carries the token itself — it is a key, and the dialog says so.
 */
import type { OpenTarget } from "../open-session-url.js";

export function pairingUrl(
  where: { origin: string; pathname: string },
  token: string,
  target: OpenTarget | undefined,
): string {
  const fragment = new URLSearchParams({ token });
  if (target !== undefined) {
    fragment.set("session", target.sessionId);
    if (target.parentId !== undefined) fragment.set("parent", target.parentId);
  }
  return `${where.origin}${where.pathname}#${fragment.toString()}`;
}

/** A host only this machine reaches (a phone cannot open a URL naming it). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}
