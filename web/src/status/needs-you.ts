/**
 * The tab says "needs you" while the reader is away: a "● " before its title and a dot on its
 * icon, until the tab is visible again. The title is the heading's (session-heading.tsx), which
 * may set it again meanwhile (a rename): the mark is put back on it.
 */

export const NEEDS_YOU = "● ";
/** The tab's icon while it needs the reader: a dot (a data: URL, which the page's CSP allows). */
const DOT_ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6" fill="#d93025"/></svg>',
)}`;

let marked: { icon: string | null; watch: MutationObserver } | undefined;

/** Marks the tab until it is visible again (nothing when it is visible now). */
export function markNeedsYou(): void {
  if (!document.hidden || marked !== undefined) return;
  const link = iconLink();
  const watch = new MutationObserver(() => prefixTitle());
  const title = document.querySelector("title");
  if (title !== null) watch.observe(title, { childList: true, characterData: true, subtree: true });
  marked = { icon: link.getAttribute("href"), watch };
  link.setAttribute("href", DOT_ICON);
  prefixTitle();
  document.addEventListener("visibilitychange", clearWhenVisible);
}

function clearWhenVisible(): void {
  if (document.hidden || marked === undefined) return;
  document.removeEventListener("visibilitychange", clearWhenVisible);
  marked.watch.disconnect();
  iconLink().setAttribute("href", marked.icon ?? "data:,");
  marked = undefined;
  if (document.title.startsWith(NEEDS_YOU)) document.title = document.title.slice(NEEDS_YOU.length);
}

function prefixTitle(): void {
  if (!document.title.startsWith(NEEDS_YOU)) document.title = `${NEEDS_YOU}${document.title}`;
}

function iconLink(): HTMLLinkElement {
  const found = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (found !== null) return found;
  const link = document.createElement("link");
  link.rel = "icon";
  document.head.append(link);
  return link;
}
