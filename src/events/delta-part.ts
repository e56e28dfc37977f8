/** One streamed part as the delta catch-up (delta-catch-up.ts) follows it. */
import type { CanonicalEvent } from "./canonical.js";

/**
 * One streamed part, from its first sign (a delta or its start) to its end going out. Then
 * only its key is remembered (`#ended`), not this record: a long session ends parts by the
 * thousand, and a record kept per ended part was most of what its memory grew by.
 */
export interface Part {
  readonly key: string;
  /** The live stream's connection count when the part was first seen. */
  readonly connection: number;
  /** How many turn ends the catch-up had seen when the part was first seen, and when (ms). */
  readonly seenAtTurnEnd: number;
  readonly seenAt: number;
  /** Its start was pushed (it may still wait in the queue behind a held end). */
  startPushed: boolean;
  /**
   * That connection was not delivering yet when the part started (its start's native id is
   * not newer than the first event the connection passed on): its first deltas may never have
   * come, and its deltas cannot be trusted to join to the value.
   */
  liveJoinedLate: boolean;
  started: boolean;
  /** Its start's native id, once it started (dates it against the live connection). */
  startId: string | undefined;
  /** The turn its start named: its deltas carry it. */
  turnId: string | undefined;
  /** Deltas that came before the part started, waiting for it. */
  early: CanonicalEvent[];
  /** What the deltas handed out so far join to. */
  handed: string;
  /** Its end is waiting in the queue: the value it carries, since when, and its bound's timer. */
  held: { value: string; since: number; timer: NodeJS.Timeout | undefined } | undefined;
  /** The bound passed: its end waits no longer. */
  expired: boolean;
  /** Its end came with no start before it: its first deltas were missed. */
  startMissed: boolean;
  /** Its end went out with the missing tail made from it: later deltas repeat what went out. */
  completed: boolean;
}

/** A part first seen now, under the live stream's `connection`-th connection. */
export function newPart(key: string, connection: number, seenAtTurnEnd: number): Part {
  return {
    key,
    connection,
    seenAtTurnEnd,
    seenAt: Date.now(),
    startPushed: false,
    liveJoinedLate: false,
    started: false,
    startId: undefined,
    turnId: undefined,
    early: [],
    handed: "",
    held: undefined,
    expired: false,
    startMissed: false,
    completed: false,
  };
}
