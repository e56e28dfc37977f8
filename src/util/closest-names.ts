/**
 * "Did you mean …?" for names a user typed: the known names ranked by edit distance, with a
 * name that contains the typed one (or is contained in it) counted as close.
 */

/** Up to `limit` of `known` closest to `wanted`, closest first (ties alphabetical). */
export function closestNames(wanted: string, known: Iterable<string>, limit = 5): string[] {
  const target = wanted.toLowerCase();
  const ranked = [...new Set(known)].map((name) => ({ name, score: distance(target, name) }));
  // Far-off names are noise: keep those within half the longer name's length.
  return ranked
    .filter(
      (entry) =>
        entry.score <= Math.ceil(Math.max(target.length, entry.name.length) / 2) ||
        containsEither(target, entry.name.toLowerCase()),
    )
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((entry) => entry.name);
}

function distance(target: string, name: string): number {
  const lower = name.toLowerCase();
  const edits = levenshtein(target, lower);
  // A containing name differs by what it adds, which says little: rank it as one edit.
  return containsEither(target, lower) ? Math.min(edits, 1) : edits;
}

function containsEither(a: string, b: string): boolean {
  return a.includes(b) || b.includes(a);
}

/** The classic edit distance (insertions, deletions, substitutions), one row at a time. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
