/**
 * Model output as safe HTML. The model is untrusted: Markdown's raw HTML is shown as text
 * (never parsed), the result goes through DOMPurify anyway, links open in a new tab without
 * an opener or referrer, and a link to anything but http(s), mailto or a fragment loses its
 * href (a `javascript:` or `data:` link is inert); only inline (`data:image/`) images are drawn.
 * Results are memoised by their source, so a finished part is parsed once however often it is
 * drawn.
 */
import DOMPurify from "dompurify";
import { Marked } from "marked";
import { highlighted } from "./highlight.js";

const SAFE_LINK = /^(?:https?:|mailto:|#)/i;

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    // Only inline images are drawn: the page's CSP forbids loading others (and a model should
    // not make the browser fetch a URL of its choosing); a web image becomes a link to it.
    image: ({ href, text }) => {
      const alt = escapeHtml(text === "" ? "image" : text);
      if (/^data:image\//i.test(href)) return `<img src="${escapeHtml(href)}" alt="${alt}">`;
      if (/^https?:/i.test(href)) return `<a href="${escapeHtml(href)}">${alt}</a>`;
      return alt;
    },
    code: ({ text, lang }) => {
      const language = lang?.trim().split(/\s+/)[0] ?? "";
      const body = highlighted(text, language) ?? escapeHtml(text);
      const label = language === "" ? "" : ` data-language="${escapeHtml(language)}"`;
      return `<pre${label}><code class="hljs">${body}</code></pre>\n`;
    },
  },
});

// Set once: a config passed to each sanitize() call is parsed again every time.
DOMPurify.setConfig({ FORBID_TAGS: ["style", "form"], ADD_ATTR: ["target"] });
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    const href = node.getAttribute("href");
    if (href === null || !SAFE_LINK.test(href.trim())) node.removeAttribute("href");
    node.setAttribute("rel", "noopener noreferrer");
    node.setAttribute("target", "_blank");
  }
});

/** Memoised HTML by source, bounded by the characters it holds (oldest dropped first). */
const cache = new Map<string, string>();
const CACHE_CHARS = 4_000_000;
let cachedChars = 0;

/** Sanitised HTML of `source` (Markdown), memoised: for finished text, parsed once. */
export function renderMarkdown(source: string): string {
  const known = cache.get(source);
  if (known !== undefined) return known;
  const html = renderMarkdownOnce(source);
  cache.set(source, html);
  cachedChars += source.length + html.length;
  for (const [oldest, oldHtml] of cache) {
    if (cachedChars <= CACHE_CHARS || cache.size <= 1) break;
    cache.delete(oldest);
    cachedChars -= oldest.length + oldHtml.length;
  }
  return html;
}

/** Sanitised HTML of `source`, not memoised: for a text still growing, never seen twice. */
export function renderMarkdownOnce(source: string): string {
  const raw = marked.parse(source) as string;
  return DOMPurify.sanitize(raw);
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
