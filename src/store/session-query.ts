/**
 * Which session records a list reads: one directory's, in creation order (then id, which a
 * session never changes, so that a page's last record marks where the next page starts), a
 * page at a time. One SQL builder for both stores: their dialects differ only in placeholders.
 */

export interface SessionQuery {
  /** Only the sessions made in this directory. */
  directory?: string | undefined;
  /** `oldest` first (the default) or `newest` first. */
  order?: "oldest" | "newest" | undefined;
  /** Only the sessions after this one in that order (the last of the page before). */
  after?: { readonly createdAt: number; readonly id: string } | undefined;
  /** At most this many. */
  limit?: number | undefined;
}

/**
 * `SELECT * FROM sessions` for `query`; `placeholder(n)` writes the n-th parameter (1-based):
 * `?` for SQLite, `$n` for Postgres. Both stores index `(created_at, id)` and
 * `(directory, created_at, id)`, so a page reads only its own rows.
 */
export function sessionQuerySql(
  query: SessionQuery,
  placeholder: (index: number) => string,
): { sql: string; params: (string | number)[] } {
  const params: (string | number)[] = [];
  const param = (value: string | number): string => {
    params.push(value);
    return placeholder(params.length);
  };
  const where: string[] = [];
  if (query.directory !== undefined) where.push(`directory = ${param(query.directory)}`);
  const newest = query.order === "newest";
  if (query.after !== undefined) {
    const createdAt = param(query.after.createdAt);
    const id = param(query.after.id);
    where.push(`(created_at, id) ${newest ? "<" : ">"} (${createdAt}, ${id})`);
  }
  const direction = newest ? "DESC" : "ASC";
  const sql = [
    "SELECT * FROM sessions",
    where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`,
    `ORDER BY created_at ${direction}, id ${direction}`,
    query.limit === undefined ? "" : `LIMIT ${param(query.limit)}`,
  ]
    .filter((part) => part !== "")
    .join(" ");
  return { sql, params };
}
