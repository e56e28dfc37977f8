/** What the malformed requests got: per kind, how many were answered as documented, and the rest. */

export interface KindTally {
  sent: number;
  asDocumented: number;
}

export class MalformedTally {
  readonly byKind = new Map<string, KindTally>();
  /** Answers with a 5xx status. */
  serverErrors = 0;
  /** No answer within the bound. */
  hangs = 0;
  /** The connection cut without an answer. */
  cuts = 0;
  /** Answers that are not the documented one (5xx, hangs and cuts included). */
  wrong = 0;
  /** Answers whose text shows a stack trace. */
  stacks = 0;
  /**
   * Big bodies still being sent when the receive timeout passed (a loaded machine): answered
   * `408 request_timeout`, as documented for them, instead of the case's own answer.
   */
  timedOutWhileSending = 0;
  /** The first few wrong answers, for the notes. */
  readonly firstWrong: string[] = [];

  /** Counts one case; `got` is what came (a status and code, or what failed). */
  add(kind: string, expected: string, got: string, weight = 1): void {
    const tally = this.byKind.get(kind) ?? { sent: 0, asDocumented: 0 };
    tally.sent += weight;
    if (got === expected) tally.asDocumented += weight;
    else {
      this.wrong += weight;
      if (this.firstWrong.length < 8)
        this.firstWrong.push(`${kind}: expected ${expected}, got ${got}`);
    }
    this.byKind.set(kind, tally);
  }

  get sent(): number {
    let total = 0;
    for (const tally of this.byKind.values()) total += tally.sent;
    return total;
  }

  summary(): string {
    return [...this.byKind]
      .map(([kind, tally]) => `${kind} ${tally.asDocumented}/${tally.sent}`)
      .join(", ");
  }
}
