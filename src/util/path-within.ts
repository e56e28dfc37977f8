import { isAbsolute, relative, sep } from "node:path";

/** True when `path` is `dir` or below it (both absolute, normalised); `/a/bc` is not below `/a/b`. */
export function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
