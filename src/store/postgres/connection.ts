/**
 * How the Postgres store connects: its URL checked and described without the password, a
 * bounded pool whose every wait has a limit, and errors turned into messages that say what
 * failed and what to do, never carrying the password.
 */
import type pg from "pg";
import { OpencodeBridgeError, UsageError } from "../../errors.js";
import { describeError } from "../../util/describe-error.js";

/** Whether `spec` names a Postgres store (rather than a SQLite file). */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** Tuning of the store's connections; every field has a default. */
export interface PostgresConnectionOptions {
  /** Most connections held at once (default 8): appends use one, reads the others. */
  maxConnections?: number;
  /** Bound on opening one connection (default 10 s). */
  connectTimeoutMs?: number;
  /** Bound on one statement, on the server and on the client (default 30 s). */
  statementTimeoutMs?: number;
}

export interface PostgresTarget {
  /** The URL without its password: for messages and logs. */
  description: string;
  /** The password, to scrub from any message that might quote it. */
  password: string;
  config: pg.PoolConfig;
}

/** Checks `url` and builds the pool's settings; a malformed URL is a `UsageError`. */
export function postgresTarget(
  url: string,
  options: PostgresConnectionOptions = {},
): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // No cause: URL's error carries the input, password included.
    throw new UsageError(
      "the transcript store URL is not a valid URL: give postgres://user:password@host:port/database",
    );
  }
  // node-postgres takes a `password` parameter before the authority's: that is the one in use.
  const password = parsed.searchParams.get("password") || decodeURIComponent(parsed.password);
  const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
  return {
    description: withoutPassword(parsed),
    password,
    config: {
      connectionString: url,
      max: options.maxConnections ?? 8,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      // The server ends a statement (a lock wait included) after this; the client gives up on
      // an answer a little later, for a server that no longer answers at all.
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + 5_000,
      // A transaction left open by a crashed client must not hold a session's lock forever.
      idle_in_transaction_session_timeout: statementTimeoutMs * 2,
      idleTimeoutMillis: 30_000,
      application_name: "opencode-bridge",
    },
  };
}

/** `url` as it can be shown: no password, in the authority or in the query. */
function withoutPassword(url: URL): string {
  const shown = new URL(url.href);
  shown.password = "";
  shown.searchParams.delete("password");
  return shown.href;
}

/** The store could not be opened at all (exit 2 from the CLI: the setting is what is wrong). */
export function cannotOpen(target: PostgresTarget, error: unknown): UsageError {
  return new UsageError(
    `cannot open the transcript store ${target.description}: ${reason(target, error)}. ` +
      "Check the server is running and reachable, and the user, password and database of the URL",
    { cause: scrubbedCause(error, target.password) },
  );
}

/** A statement of an open store failed (the server went away, a timeout, …). */
export function storeFailed(
  target: PostgresTarget,
  what: string,
  error: unknown,
): OpencodeBridgeError {
  if (error instanceof OpencodeBridgeError) return error;
  return new OpencodeBridgeError(
    `the transcript store ${target.description}: ${what} failed: ${reason(target, error)}`,
    { cause: scrubbedCause(error, target.password) },
  );
}

function reason(target: PostgresTarget, error: unknown): string {
  return scrub(describeError(error), target.password);
}

function scrub(text: string, password: string): string {
  return password === "" ? text : text.replaceAll(password, "***");
}

/**
 * pg's errors do not quote the password, but a cause is kept for debugging and may be logged
 * whole: one that mentions the password is replaced by a scrubbed copy of its message.
 */
function scrubbedCause(error: unknown, password: string): unknown {
  if (password === "") return error;
  const text = error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error);
  if (!text.includes(password)) return error;
  return new Error(scrub(error instanceof Error ? error.message : String(error), password));
}
