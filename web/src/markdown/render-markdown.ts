/**
 * Model output as safe HTML. The model is untrusted: Markdown's raw HTML is shown as text
 * (never parsed), the result goes through DOMPurify anyway, links open in a new tab without
 * an opener or referrer, and a link to anything but http(s), mailto or a fragment loses its
 * href (a `javascript:` or `data:` link is inert). Results are memoised by their source, so a
 * finished part is parsed once however often it is drawn.
 */
import DOMPurify from "dompurify";
import { Marked } from "marked";
import { highlighted } from "./highlight.js";

const SAFE_LINK = /^(?:https?:|mailto:|#)/i;
const CACHE_LIMIT = 2000;

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    code: ({ text, lang }) => {
      const language = lang?.trim().split(/\s+/)[0] ?? "";
      const body = highlighted(text, language) ?? escapeHtml(text);
      const label = language === "" ? "" : ` data-language="${escapeHtml(language)}"`;
      return `<pre${label}><code class="hljs">${body}</code></pre>\n`;
    },
  },
});

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    const href = node.getAttribute("href");
    if (href === null || !SAFE_LINK.test(href.trim())) node.removeAttribute("href");
    node.setAttribute("rel", "noopener noreferrer");
    node.setAttribute("target", "_blank");
  }
});

const cache = new Map<string, string>();

/** Sanitised HTML of `source` (Markdown). */
export function renderMarkdown(source: string): string {
  const known = cache.get(source);
  if (known !== undefined) return known;
  const raw = marked.parse(source) as string;
  const html = DOMPurify.sanitize(raw, { FORBID_TAGS: ["style", "form"], ADD_ATTR: ["target"] });
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(source, html);
  return html;
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
