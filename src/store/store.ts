/**
 * The durable transcript store: each session's durable canonical events, numbered, beside the
 * upstream cursor they were read up to, and the sessions' own records. One interface so that
 * the runtime does not care which database keeps them (SQLite today, Postgres later).
 */
import type { CanonicalEvent } from "../events/canonical.js";
import type { SessionQuery } from "./session-query.js";

export type { SessionQuery };

/** What the bridge remembers about one of its sessions. */
export interface SessionRecord {
  /** The bridge's session id (the `sessionId` of its events). */
  id: string;
  /** The backend kind that drives it (`serve`, `serve-legacy`, `subprocess`, …). */
  backend: string;
  /** The OpenCode session id, once there is one. */
  upstreamId?: string;
  directory: string;
  title?: string;
  /** `released` keeps the upstream session for later; `killed` ended it for good. */
  state: "open" | "released" | "killed";
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
}

/** A page of a session's transcript. */
export interface ReadOptions {
  /** Only events with a greater `seq` (default 0: from the start). */
  after?: number;
  /** At most this many events (default: all). */
  limit?: number;
}

/**
 * Where transcripts and records are kept. Asynchronous, so that a database server (Postgres)
 * can stand behind it and appends can be grouped into shared transactions (group commit).
 */
export interface Store {
  /** What it is, for messages and logs: a path, or a URL without its password. */
  readonly description: string;
  /**
   * Keeps the durable events of `events` (ephemeral ones are dropped), numbering them after the
   * session's last `seq`, and saves `cursor` (the upstream position they were read up to) in the
   * SAME transaction, so that the cursor never runs ahead of or behind what is stored. An event
   * whose `id` the session already has is skipped (it keeps its first seq), so that a
   * re-delivery after a resume does not duplicate. Resolves, after the commit, with the events
   * stored (with `seq`).
   *
   * Group commit: appends of any sessions issued while a commit is under way, or in the same
   * tick, are written together in one transaction; each call still gets only its own events. A
   * failed commit rejects every call it carried, and none of their events is stored.
   */
  append(
    sessionId: string,
    events: readonly CanonicalEvent[],
    cursor?: string,
  ): Promise<CanonicalEvent[]>;
  /** The session's stored events in `seq` order. */
  read(sessionId: string, options?: ReadOptions): Promise<CanonicalEvent[]>;
  /** The session's last stored `seq` (0 when it has none). */
  lastSeq(sessionId: string): Promise<number>;
  /** The upstream cursor saved with the session's last append that gave one. */
  cursor(sessionId: string): Promise<string | undefined>;

  /** Inserts or replaces the record with the same id. */
  saveSession(record: SessionRecord): Promise<void>;
  session(id: string): Promise<SessionRecord | undefined>;
  /** The records `query` asks for (default: every one, oldest first). */
  sessions(query?: SessionQuery): Promise<SessionRecord[]>;
  /** Forgets the session: its record, its events and its cursor. */
  deleteSession(id: string): Promise<void>;

  /** Remembers the managed server a bridge runs under `key`, so that a successor can take it up. */
  saveServer(key: string, record: ServerRecord): Promise<void>;
  server(key: string): Promise<ServerRecord | undefined>;
  deleteServer(key: string): Promise<void>;

  /** Writes what is pending, then closes. Idempotent. */
  close(): Promise<void>;
}

/** A managed `opencode serve` as a successor bridge needs it to take it up again. */
export interface ServerRecord {
  url: string;
  username: string;
  /**
   * Written by earlier versions only: its keeper holds the password now (and tells a
   * successor), so that no store carries it. Still read, to take up a server of such a version.
   */
  password?: string;
  /** Leader of the server's process group. */
  pid: number;
  /** Its isolated dirs (removed when it is stopped), when it runs isolated. */
  root?: string;
  /**
   * The bridge process that runs it: only a server whose bridge is gone is taken up; 0 when
   * its bridge left it running on purpose (`Bridge.close({ leaveRunning: true })`).
   */
  ownerPid: number;
  /** A hash of the config it was started with: a different config starts a new server. */
  configHash: string;
  /** The socket of its keeper, which a successor links to in order to keep it running. */
  keeper?: string;
}
