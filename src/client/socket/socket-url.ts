/** `ws(s)://host/prefix<path>?<query>` from the sidecar's http(s) URL: where its sockets are. */
export function sidecarSocketUrl(base: URL, path: string, query: Record<string, string>): string {
  const url = new URL(base.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  url.search = `?${new URLSearchParams(query)}`;
  return url.href;
}
