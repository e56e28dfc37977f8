/**
 * What is open lives in the fragment (`#session=…`, and `&parent=…` for a subagent's child
 * conversation, which the sidecar serves through its parent), so a reload reopens it.
 */
export interface OpenTarget {
  sessionId: string;
  /** Set for a subagent's child session: the session whose turn started it. */
  parentId?: string;
}

export function targetFromUrl(): OpenTarget | undefined {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const sessionId = fragment.get("session");
  if (sessionId === null || sessionId === "") return undefined;
  const parentId = fragment.get("parent");
  return parentId === null || parentId === "" ? { sessionId } : { sessionId, parentId };
}

export function putTargetInUrl(target: OpenTarget): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  fragment.set("session", target.sessionId);
  if (target.parentId === undefined) fragment.delete("parent");
  else fragment.set("parent", target.parentId);
  history.replaceState(null, "", `${location.pathname}${location.search}#${fragment.toString()}`);
}

/** Nothing open (the landing page): the fragment keeps only what is not about a session. */
export function clearTargetFromUrl(): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  fragment.delete("session");
  fragment.delete("parent");
  const rest = fragment.toString();
  history.replaceState(
    null,
    "",
    `${location.pathname}${location.search}${rest === "" ? "" : `#${rest}`}`,
  );
}
