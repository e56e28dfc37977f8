/**
 * The rows Postgres gives back, as typed values. BIGINT columns come back as strings (pg does
 * not guess whether they fit a number); the store's own values (seqs, milliseconds) always do.
 * Event bodies and session rows are then checked as the SQLite store checks its own.
 */
import { OpencodeBridgeError } from "../../errors.js";
import { isRecord } from "../../util/is-record.js";
import { sessionOfRow } from "../sqlite-rows.js";
import type { SessionRecord } from "../store.js";

/** A BIGINT (or INTEGER) column's value as a number. */
export function numberOfColumn(value: unknown, where: string): number {
  const number = typeof value === "string" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number)) {
    throw new OpencodeBridgeError(`${where} holds ${String(value)} where a whole number belongs`);
  }
  return number;
}

/** A `sessions` row as its record. */
export function sessionOfPostgresRow(row: unknown, where: string): SessionRecord {
  if (!isRecord(row))
    throw new OpencodeBridgeError(`${where} holds a session row of the wrong shape`);
  return sessionOfRow(
    {
      ...row,
      created_at: numberOfColumn(row.created_at, where),
      updated_at: numberOfColumn(row.updated_at, where),
    },
    where,
  );
}
