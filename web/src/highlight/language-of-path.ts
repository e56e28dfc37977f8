/**
 * The highlight.js language a file is written in, from its name's extension: only languages
 * registered in markdown/highlight.ts (each one costs bundle size), so an unknown extension
 * gets none and its text is shown plain.
 */
const LANGUAGE_OF_EXTENSION: Readonly<Record<string, string>> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  py: "python",
  rs: "rust",
  go: "go",
  json: "json",
  css: "css",
  html: "xml",
  htm: "xml",
  xml: "xml",
  svg: "xml",
  md: "markdown",
  markdown: "markdown",
  yml: "yaml",
  yaml: "yaml",
  sh: "bash",
  bash: "bash",
  sql: "sql",
  diff: "diff",
  patch: "diff",
};

/** The language of `path` (a path or a bare name, `/` or `\` separated), or undefined. */
export function languageOfPath(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const name = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  const dot = name.lastIndexOf(".");
  // No dot, or only a leading one (`.bashrc`): a name, not an extension.
  if (dot <= 0) return undefined;
  const extension = name.slice(dot + 1).toLowerCase();
  // An own property only: `x.constructor` has no language.
  return Object.hasOwn(LANGUAGE_OF_EXTENSION, extension)
    ? LANGUAGE_OF_EXTENSION[extension]
    : undefined;
}
