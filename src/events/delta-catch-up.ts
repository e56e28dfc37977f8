/**
 * The delta rule (docs/events.md): every delta of a part comes before the part's `*.ended`,
 * and whenever the live stream was connected for the whole part, its deltas joined are the
 * ended value.
 *
 * On `serve` the deltas come on the live stream and the parts' starts and ends on the durable
 * one. The two connections are not ordered against each other: a burst's deltas often land
 * after its end (even after the turn's), and the live side can run a whole turn ahead. So:
 * - a delta that comes before its part's `*.started` waits for it, and every delta carries
 *   the turn its part started in (not whatever turn the normaliser is in when it arrives);
 * - a part's `*.ended` is held, with every event after it (the durable order is kept: the
 *   turn's end comes after all its parts' ends), until the deltas handed out join to its
 *   value; while the live stream keeps delivering, for a bounded time per part. A reconnect
 *   of the live stream during the part means deltas were lost upstream: then it is not held,
 *   nor when the live connection was not yet delivering when the part started (a cut just as
 *   it began, or a bridge adopting a running turn: the first event the connection passed on
 *   is not older than the part's start, see `liveHeard`), nor when the deltas handed out do
 *   not begin its value;
 * - a delta that comes after its part's end went out is dropped, and so is one that follows a
 *   hole (a reconnect of the live stream during its part, or a connection made after it
 *   started): the rest of such a part goes out from its end, so that its deltas still join to
 *   its value.
 * What could not be handed out whole is counted (`stats()`) and logged, never lost silently.
 *
 * `serve-legacy` has one ordered stream: it uses this with `idleMs: 0` (nothing is held), for
 * the same counts and the same guarantee that no delta follows its part's end.
 */

import { type Logger, silentLogger } from "../util/logger.js";
import { TwoTurnMap } from "../util/two-turn-map.js";
import type { CanonicalEvent } from "./canonical.js";
import { newPart, type Part } from "./delta-part.js";
import type { DeltaStats } from "./delta-stats.js";
import { nativeIdBefore } from "./native-id-order.js";
import {
  DELTA_KINDS,
  type DeltaKind,
  deltaFromEnd,
  type PartEvent,
  partEventOf,
} from "./part-events.js";

/**
 * A held end goes once no delta of the session came for this long (the live side stopped short).
 * Not shorter: on a loaded machine the live stream pauses for a second or more and then
 * delivers everything (1 s dropped the last deltas of a 10,000-delta tool input on a clean clone).
 */
export const DELTA_IDLE_MS = 5_000;

/** A held end goes at the latest this long after it arrived, however the live side moves. */
export const DELTA_MAX_HOLD_MS = 30_000;

/**
 * Ended parts remembered (to drop their late deltas) in each of the two generations kept (the
 * running turn's and the turn before's, or more turns' when they end within `maxHoldMs`); the
 * oldest of a generation beyond it are forgotten.
 */
export const ENDED_PARTS_KEPT = 1_000;

/**
 * A part seen only by its deltas, whose start was never pushed though two turn ends went out
 * and this long passed since its first delta, is no part to come: its deltas are the late ones
 * of a part whose key was forgotten. Both, because the live stream can run turns ahead of the
 * durable one (a durable stream replaying after a reconnect, or an adopting bridge's, pushes
 * several turn ends at once while the live one's early deltas wait for their starts).
 */
export const ORPHAN_AFTER_MS = 60_000;

export interface DeltaCatchUpOptions {
  /** See `DELTA_IDLE_MS`; 0: ends are never held (a surface with one ordered stream). */
  idleMs?: number;
  /** See `DELTA_MAX_HOLD_MS`. */
  maxHoldMs?: number;
  /** The kinds of part whose deltas the surface streams; the others' ends wait for nothing. */
  kinds?: readonly DeltaKind[];
  logger?: Logger;
}

/** An event waiting behind a held end; the start or end of a part, if it is one. */
interface Queued {
  event: CanonicalEvent;
  start?: Part;
  end?: Part;
}

export class DeltaCatchUp {
  readonly #out: (event: CanonicalEvent) => void;
  readonly #idleMs: number;
  readonly #maxHoldMs: number;
  readonly #kinds: ReadonlySet<DeltaKind>;
  readonly #logger: Logger;
  /** The parts whose end has not gone out yet. */
  readonly #parts = new Map<string, Part>();
  /**
   * The parts whose end (or turn's end) went out in the running turn and the turn before, by
   * key: whether it went out completed from the end (its late deltas repeat what went out,
   * so they are let go uncounted). A late delta of one of them is dropped. A late delta comes
   * after its part's end, even after its turn's, but not after the next turn's: a long session
   * keeps two turns' keys, not a window that fills over hours of turns (the soak saw it). The
   * generations turn over at most once per `maxHoldMs`, so that every key is kept that long
   * at least too: a turn that ends at once (failed, interrupted) while the live stream still
   * lags does not forget the turn before's parts with their tails still coming.
   */
  readonly #ended = new TwoTurnMap<string, boolean>(ENDED_PARTS_KEPT);
  /** When the ended parts' generations last turned over. */
  #endedTurnedAt = Number.NEGATIVE_INFINITY;
  /** Turn ends seen: a part that waits for its start through two of them is no new part's. */
  #turnEnds = 0;
  /** Events behind a held end, in order (the first one is a held end, if any is). */
  readonly #queue: Queued[] = [];
  /** How often the live stream connected: a part seen under an earlier count lost deltas. */
  #connections = 0;
  /** The native id of the event from which on this session hears the connection (`liveHeard`). */
  #heardId: string | undefined;
  #lastDeltaAt = 0;
  readonly #stats = { completedParts: 0, incompleteParts: 0, droppedDeltas: 0 };
  /** After `flush()`: everything passes straight through. */
  #closed = false;

  constructor(out: (event: CanonicalEvent) => void, options: DeltaCatchUpOptions = {}) {
    this.#out = out;
    this.#idleMs = options.idleMs ?? DELTA_IDLE_MS;
    this.#maxHoldMs = options.maxHoldMs ?? DELTA_MAX_HOLD_MS;
    this.#kinds = new Set(options.kinds ?? DELTA_KINDS);
    this.#logger = options.logger ?? silentLogger;
  }

  /** A copy of the counts so far. */
  stats(): DeltaStats {
    return { ...this.#stats, liveReconnects: Math.max(0, this.#connections - 1) };
  }

  /**
   * The live stream (re)connected. What it sent while it was away is gone: parts already
   * going have lost deltas, so their ends wait for nothing.
   */
  liveConnected(): void {
    this.#connections++;
    this.#heardId = undefined;
    this.#drain();
  }

  /**
   * From the event of native id `heardId` on, this session hears everything the current live
   * connection passes on (its first event, or the newest before the session joined it: see
   * `SharedStreamListener.heard`): it dates the connection. Not its `server.connected` event,
   * which OpenCode makes before its subscription delivers: events made in between (tens of ms,
   * more on a busy server) never come on the connection (a clean clone's reliability run lost a
   * reply's first six deltas so). A part that started before that event may have lost its
   * first deltas though first seen after the connection (a cut as it began, an adopted turn's
   * part): it goes out from its end; one that started after it has every delta coming.
   */
  liveHeard(heardId: string | undefined): void {
    this.#heardId = heardId;
    for (const part of this.#parts.values()) {
      if (part.started) this.#date(part);
    }
    this.#drain();
  }

  push(event: CanonicalEvent): void {
    if (this.#closed) {
      this.#out(event);
      return;
    }
    const partEvent = partEventOf(event);
    const tracked = partEvent !== undefined && this.#kinds.has(partEvent.kind);
    const key = tracked ? partKey(partEvent) : "";
    const endedCompleted = tracked ? this.#ended.get(key) : undefined;
    if (tracked && partEvent.phase === "delta") {
      if (endedCompleted === undefined) this.#delta(event, this.#part(key));
      else this.#lateDelta(key, endedCompleted);
      return;
    }
    if (!tracked || endedCompleted !== undefined) {
      this.#queue.push({ event });
    } else {
      const part = this.#part(key);
      if (partEvent.phase === "ended" && part.held === undefined) {
        this.#hold(part, partEvent.text);
        this.#queue.push({ event, end: part });
      } else if (partEvent.phase === "started" && !part.started) {
        part.startPushed = true;
        this.#queue.push({ event, start: part });
      } else {
        this.#queue.push({ event });
      }
    }
    this.#drain();
  }

  /**
   * The session ended the turn itself (stalled, connection lost): no `turn.ended` of it may
   * ever come through here, so its parts that never ended are forgotten now, like at a turn's
   * end (their late deltas are dropped), instead of being kept for the life of the session.
   * It counts as a turn end for the ended parts' keys too.
   */
  abandonTurn(turnId: string | undefined): void {
    this.#endTurn(turnId);
  }

  /** How many parts are known, going and ended (the ended ones are bounded; for tests). */
  get trackedParts(): number {
    return this.#parts.size + this.#ended.size;
  }

  /** Lets everything held go, drops what waits for a start, and holds nothing any more. */
  flush(): void {
    if (this.#closed) return;
    for (const part of this.#parts.values()) {
      if (part.held !== undefined) part.expired = true;
    }
    this.#drain();
    this.#closed = true;
    for (const part of this.#parts.values()) {
      this.#stats.droppedDeltas += part.early.length;
      part.early = [];
    }
  }

  #part(key: string): Part {
    let part = this.#parts.get(key);
    if (part === undefined) {
      part = newPart(key, this.#connections, this.#turnEnds);
      this.#parts.set(key, part);
    }
    return part;
  }

  /** A delta of a part whose end went out: dropped (counted, unless the end completed it). */
  #lateDelta(key: string, completed: boolean): void {
    this.#lastDeltaAt = Date.now();
    if (completed) return;
    this.#stats.droppedDeltas++;
    this.#logger.debug("dropped a delta that came after its part's end", { part: key });
  }

  #delta(event: CanonicalEvent, part: Part): void {
    this.#lastDeltaAt = Date.now();
    if (this.#followsHole(part)) {
      // The live stream was away during the part: what it sent meanwhile is lost, so this
      // delta follows a hole. Handed out, the deltas would no longer join to the value; the
      // rest of the part goes out from its end instead, in one delta.
      this.#stats.droppedDeltas++;
      return;
    }
    if (!part.started) {
      part.early.push(event);
      return;
    }
    this.#handOut(event, part);
    if (part.held !== undefined && part.handed.length >= part.held.value.length) this.#drain();
  }

  /** The live stream was away for part of the part: its deltas do not begin at its start. */
  #followsHole(part: Part): boolean {
    return part.connection !== this.#connections || part.liveJoinedLate;
  }

  #handOut(event: CanonicalEvent, part: Part): void {
    part.handed += partEventOf(event)?.text ?? "";
    this.#out(withTurn(event, part.turnId));
  }

  /** The part's end arrived: it may have to wait, for a bounded time counted from now. */
  #hold(part: Part, value: string): void {
    part.held = { value, since: Date.now(), timer: undefined };
    if (this.#idleMs > 0) this.#armBound(part, this.#idleMs);
  }

  #armBound(part: Part, delayMs: number): void {
    const held = part.held;
    if (held === undefined) return;
    held.timer = setTimeout(() => this.#checkBound(part), delayMs);
    held.timer.unref();
  }

  /** The bound is on silence: while the session's deltas keep coming, the end keeps waiting (up to the maximum). */
  #checkBound(part: Part): void {
    const held = part.held;
    if (held === undefined || this.#closed) return;
    const now = Date.now();
    const quietSince = Math.max(this.#lastDeltaAt, held.since);
    const deadline = Math.min(quietSince + this.#idleMs, held.since + this.#maxHoldMs);
    if (now < deadline) {
      this.#armBound(part, deadline - now);
      return;
    }
    part.expired = true;
    this.#drain();
  }

  /** Sends what the queue can let go, in order, up to the first end that must still wait. */
  #drain(): void {
    for (;;) {
      const head = this.#queue[0];
      if (head === undefined) return;
      const { event, start, end } = head;
      if (end?.held !== undefined) {
        // An end with no start seen (a stream resumed mid-part): its part starts here, and
        // the deltas before the resume are not coming.
        if (!end.started) {
          this.#start(end, event.turnId, undefined);
          end.startMissed = true;
        }
        if (!this.#mayEnd(end, end.held.value)) return;
        this.#queue.shift();
        this.#end(end, event);
        this.#out(event);
        continue;
      }
      this.#queue.shift();
      this.#out(event);
      if (start !== undefined) this.#start(start, event.turnId, event.native?.id);
      if (event.type === "turn.ended") this.#endTurn(event.turnId);
    }
  }

  #mayEnd(part: Part, value: string): boolean {
    return (
      this.#idleMs <= 0 ||
      part.expired ||
      part.startMissed ||
      this.#connections === 0 ||
      this.#followsHole(part) ||
      part.handed.length >= value.length ||
      // Deltas that do not begin the value followed a hole (a live stream that joined
      // mid-part, as an adopting bridge's does): no later delta can make it whole.
      !value.startsWith(part.handed)
    );
  }

  /**
   * The part started (`startId`: its start's native id): the deltas that waited for it go out
   * now, carrying its turn; unless the live connection was not delivering yet when it started,
   * and missed its first deltas.
   */
  #start(part: Part, turnId: string | undefined, startId: string | undefined): void {
    part.started = true;
    part.turnId = turnId;
    part.startId = startId;
    this.#date(part);
    const early = part.early;
    part.early = [];
    if (part.liveJoinedLate) {
      this.#stats.droppedDeltas += early.length;
      return;
    }
    for (const delta of early) this.#handOut(delta, part);
  }

  /**
   * Whether the live connection the part was first seen on was delivering when it started:
   * known once the connection passed on an event (`liveHeard`; no delta of the part can come
   * on it before). Nothing is concluded from ids not of OpenCode's ascending shape.
   */
  #date(part: Part): void {
    const heardId = this.#heardId;
    const startId = part.startId;
    if (heardId === undefined || startId === undefined) return;
    if (part.connection !== this.#connections) return; // a hole already
    part.liveJoinedLate = nativeIdBefore(heardId, startId) === false;
  }

  /** The part's end goes out next: if deltas are missing at its tail, they go out first. */
  #end(part: Part, end: CanonicalEvent): void {
    clearTimeout(part.held?.timer);
    const value = part.held?.value ?? "";
    const tail = part.handed !== value && value.startsWith(part.handed);
    const tailDelta = tail ? deltaFromEnd(end, value.slice(part.handed.length)) : undefined;
    if (tailDelta !== undefined) {
      this.#stats.completedParts++;
      this.#logger.info("a part's last deltas came late: the rest went out from its end", {
        part: part.key,
        handed: part.handed.length,
        length: value.length,
        reason: this.#lossReason(part),
      });
      this.#handOut(tailDelta, part);
      part.completed = true;
      this.#forget(part);
      return;
    }
    if (part.handed !== value) {
      this.#stats.incompleteParts++;
      this.#logger.info("a part ended before all its deltas were handed out", {
        part: part.key,
        handed: part.handed.length,
        length: value.length,
        reason: this.#lossReason(part),
      });
    }
    this.#forget(part);
  }

  #lossReason(part: Part): string {
    if (this.#idleMs <= 0) return "the deltas differ from the ended value";
    if (this.#connections === 0) return "the live stream has not connected yet";
    if (part.connection !== this.#connections) return "the live stream reconnected during the part";
    if (part.liveJoinedLate)
      return "the live connection was not delivering yet when the part started";
    if (part.startMissed) return "the stream was resumed during the part";
    if (part.expired) return "the live stream did not catch up in time";
    if (!part.completed && !(part.held?.value ?? "").startsWith(part.handed)) {
      return "its first deltas were missed (the live stream joined mid-part)";
    }
    return "the deltas differ from the ended value";
  }

  /**
   * The turn ended: its parts that never ended (a cut-short step) take no more deltas; and an
   * orphan (`ORPHAN_AFTER_MS`) is dropped, counted, instead of being kept to the session's end.
   */
  #endTurn(turnId: string | undefined): void {
    if (turnId === undefined) return;
    this.#turnEnds++;
    const now = Date.now();
    for (const part of this.#parts.values()) {
      if (part.started && part.turnId === turnId && part.held === undefined) {
        this.#forget(part);
      } else if (this.#orphaned(part, now)) {
        this.#stats.droppedDeltas += part.early.length;
        part.early = [];
        this.#forget(part);
      }
    }
    if (now - this.#endedTurnedAt >= this.#maxHoldMs) {
      this.#ended.turnEnded();
      this.#endedTurnedAt = now;
    }
  }

  #orphaned(part: Part, now: number): boolean {
    return (
      !part.started &&
      !part.startPushed &&
      part.held === undefined &&
      part.seenAtTurnEnd < this.#turnEnds - 1 &&
      now - part.seenAt >= ORPHAN_AFTER_MS
    );
  }

  /** Keeps only that the part ended (its late deltas are dropped), for two turns. */
  #forget(part: Part): void {
    part.held = undefined;
    this.#parts.delete(part.key);
    this.#ended.set(part.key, part.completed);
  }
}

function partKey(partEvent: PartEvent): string {
  return `${partEvent.kind} ${partEvent.id}`;
}

/** The event as its part's turn: a delta belongs where its part started. */
function withTurn(event: CanonicalEvent, turnId: string | undefined): CanonicalEvent {
  if (event.turnId === turnId) return event;
  if (turnId !== undefined) return { ...event, turnId };
  const { turnId: _ignored, ...rest } = event;
  return rest as CanonicalEvent;
}
