/**
 * What a recording must not keep: the machine's working directory (it becomes `"<work>"`, so
 * a transcript replays anywhere) and secrets (they become `"<redacted>"`).
 */

export const REDACTED = "<redacted>";

/** Keys whose string values are secrets wherever they appear. */
const SECRET_KEY =
  /^(authorization|proxy-authorization|api[-_]?key|password|passwd|secret|client[-_]?secret|(access|refresh|id|auth|bearer)[-_]?token|token|cookie|set-cookie)$/i;

export interface SanitizeOptions {
  /** Replaced by `"<work>"` wherever it appears in a string. */
  directory: string;
  /** Values replaced by `"<redacted>"` wherever they appear in a string (passwords, keys). */
  secrets?: readonly string[];
}

/** A deep copy of `value` with the directory replaced and secrets redacted. */
export function sanitize(value: unknown, options: SanitizeOptions): unknown {
  const secrets = (options.secrets ?? []).filter((secret) => secret.length >= 4);
  const visit = (item: unknown, key: string | undefined): unknown => {
    if (typeof item === "string") {
      if (key !== undefined && SECRET_KEY.test(key)) return REDACTED;
      let text = item;
      for (const secret of secrets) text = text.replaceAll(secret, REDACTED);
      return replaceDirectory(text, options.directory);
    }
    if (Array.isArray(item)) return item.map((element) => visit(element, undefined));
    if (typeof item === "object" && item !== null) {
      return Object.fromEntries(
        Object.entries(item).map(([name, element]) => [name, visit(element, name)]),
      );
    }
    return item;
  };
  return visit(value, undefined);
}

/** Stands for the directory as a path relative to the filesystem root (OpenCode's `path`). */
export const RELATIVE_WORK = "<work-relative>";

function replaceDirectory(text: string, directory: string): string {
  if (directory.length < 2) return text;
  const relative = directory.replace(/^\//, "");
  if (text === relative) return RELATIVE_WORK;
  // OpenCode's permission patterns and tool titles are paths relative to the root too.
  if (text.startsWith(`${relative}/`)) return RELATIVE_WORK + text.slice(relative.length);
  // Longest form first: the URL-encoded directory appears in some echoed query strings.
  return text
    .replaceAll(encodeURIComponent(directory), encodeURIComponent("<work>"))
    .replaceAll(directory, "<work>");
}
