/** The open session lives in the fragment (`#session=…`), so a reload reopens it. */
export function sessionFromUrl(): string | undefined {
  const id = new URLSearchParams(location.hash.slice(1)).get("session");
  return id === null || id === "" ? undefined : id;
}

export function putSessionInUrl(sessionId: string): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  fragment.set("session", sessionId);
  history.replaceState(null, "", `${location.pathname}${location.search}#${fragment.toString()}`);
}
