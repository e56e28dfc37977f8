/**
 * Code highlighting: highlight.js's core with a handful of common languages registered (the
 * full build would add hundreds of KB for languages a coding chat rarely shows).
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = {
  bash,
  css,
  diff,
  go,
  javascript,
  json,
  markdown,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** `code` as highlighted HTML (escaped by highlight.js), or undefined for an unknown language. */
export function highlighted(code: string, language: string | undefined): string | undefined {
  const name = language?.trim().split(/\s+/)[0]?.toLowerCase();
  if (name === undefined || name === "" || hljs.getLanguage(name) === undefined) return undefined;
  return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
}
