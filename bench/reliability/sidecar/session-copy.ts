/**
 * One client's copy of one session's durable events, as it received them: what it must end
 * with is the store's list (same ids and seqs, in order, nothing missing, nothing twice).
 */

/** What is compared of a durable event: its identity and place. */
export interface DurableMark {
  id: string;
  seq: number;
  type: string;
  turnId?: string;
}

export class SessionCopy {
  readonly events: DurableMark[] = [];
  /** Durable events received again (a seq at or below the last one). */
  duplicates = 0;
  /** Durable events that came after a hole in the seqs. */
  gaps = 0;

  get lastSeq(): number {
    return this.events.at(-1)?.seq ?? 0;
  }

  /** Takes one received event; only durable ones are kept. */
  take(event: unknown): void {
    if (typeof event !== "object" || event === null) return;
    const { durable, seq, id, type, turnId } = event as Record<string, unknown>;
    if (durable !== true || typeof seq !== "number" || typeof id !== "string") return;
    if (seq <= this.lastSeq) {
      this.duplicates++;
      return;
    }
    if (seq !== this.lastSeq + 1) this.gaps++;
    this.events.push({
      id,
      seq,
      type: String(type),
      ...(typeof turnId === "string" ? { turnId } : {}),
    });
  }
}

/** How `copy` differs from `stored` (the store's list): missing, extra or misplaced events. */
export function compareCopy(
  copy: SessionCopy,
  stored: readonly DurableMark[],
): { lost: number; duplicated: number; mismatched: number } {
  const received = new Map(copy.events.map((event) => [event.seq, event]));
  let lost = 0;
  let mismatched = 0;
  for (const event of stored) {
    const mine = received.get(event.seq);
    if (mine === undefined) lost++;
    else if (mine.id !== event.id) mismatched++;
  }
  const storedSeqs = new Set(stored.map((event) => event.seq));
  mismatched += copy.events.filter((event) => !storedSeqs.has(event.seq)).length;
  return { lost, duplicated: copy.duplicates, mismatched };
}
