/**
 * The links of a Markdown page and the anchors its headings make, as GitHub renders them: what
 * `test/package/docs-links.test.ts` checks. Code (fenced blocks, inline spans) holds no link.
 */

/** A link as written: its target (`path`, `path#anchor`, `#anchor`) and the line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** The page's lines, those of fenced code blocks (and their fences) blanked out. */
function linesOutsideFences(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split("\n").map((line) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = undefined;
      }
      return "";
    }
    if (marker !== undefined) {
      fence = marker;
      return "";
    }
    return line;
  });
}

/** Every link of the page: Markdown links and images, and `href`/`src` of inline HTML. */
export function linksOf(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  linesOutsideFences(markdown).forEach((line, index) => {
    const text = line.replace(/(`+)[^`]*?\1/g, "code"); // a link inside inline code is code
    const patterns = [
      /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
      /\b(?:href|src)="([^"]+)"/g,
    ];
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        if (match[1] !== undefined) links.push({ target: match[1], line: index + 1 });
      }
    }
  });
  return links;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
export function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link in a heading: its text
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The anchors the page's headings make (a repeated one gets `-1`, `-2`, …), and its `id`s. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of linesOutsideFences(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = slugOf(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const match of line.matchAll(/\b(?:id|name)="([^"]+)"/g)) {
      if (match[1] !== undefined) anchors.add(match[1]);
    }
  }
  return anchors;
}
