/**
 * How an event's body and a session's title are written to a store's rows and read back: ONE
 * codec that both stores (SQLite and Postgres) apply where they serialise an event or a
 * record, so that encryption at rest has a single implementation to review, whatever the
 * database. A codec rather than a `Store` decorator: the stores number events inside their
 * transactions (the seq is part of what a ciphertext is bound to), and a decorator outside
 * them never sees the row an event lands in.
 *
 * The plaintext codec stores what the stores always stored (an event as JSON, a title as it
 * is). The sealing codec (sealing-codec.ts) stores each as an AEAD ciphertext.
 */
import type { CanonicalEvent } from "../../events/canonical.js";
import { eventOfBody } from "../sqlite-rows.js";

/** An `events` row's columns as a codec reads them. */
export interface EventRow {
  sessionId: string;
  seq: number;
  eventId: string;
  type: string;
  body: unknown;
}

export interface RowCodec {
  /** The id of the key that encrypts what is written now; undefined: written in clear. */
  readonly writeKeyId: string | undefined;
  /** The `body` column of `event` (numbered: its `seq` is its row's). */
  sealEvent(event: CanonicalEvent): string;
  /** The event of a row; a row that is not one (or does not decrypt) fails, naming it. */
  openEvent(row: EventRow, where: string): CanonicalEvent;
  /** The `title` column of session `sessionId`'s title. */
  sealTitle(sessionId: string, title: string | undefined): string | null;
  /** A `title` column's title. */
  openTitle(sessionId: string, stored: string | undefined, where: string): string | undefined;
  /** The key id a stored body or title was written with (undefined: in clear). */
  keyIdOf(stored: string): string | undefined;
}

/** What the stores wrote before encryption, and write without a key. */
export const PLAINTEXT_CODEC: RowCodec = {
  writeKeyId: undefined,
  sealEvent: (event) => JSON.stringify(event),
  openEvent: (row, where) => eventOfBody(row.body, where),
  sealTitle: (_sessionId, title) => title ?? null,
  openTitle: (_sessionId, stored) => stored,
  keyIdOf: () => undefined,
};

/** Whether `store` keeps its bodies and titles encrypted (false for a store of another kind). */
export function isEncryptedStore(store: object): boolean {
  const codec = (store as { codec?: RowCodec }).codec;
  return codec !== undefined && codec.writeKeyId !== undefined;
}
