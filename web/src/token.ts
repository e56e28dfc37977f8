/**
 * The access token. `ocb serve` prints the chat's URL with the token in the fragment
 * (`#token=…`), which a browser never sends to a server; the page keeps it for the tab in
 * sessionStorage and takes it out of the address bar, so it is not bookmarked or shared.
 */
const KEY = "ocb-token";

/** The token of this tab: the fragment's (kept, then removed from the URL) or the kept one. */
export function takeToken(): string | undefined {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromUrl = fragment.get("token");
  if (fromUrl !== null && fromUrl !== "") {
    saveToken(fromUrl);
    fragment.delete("token");
    const rest = fragment.toString();
    history.replaceState(
      null,
      "",
      `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`,
    );
  }
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}

/** The token this tab holds, without touching the URL (the pairing code carries it). */
export function keptToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}
