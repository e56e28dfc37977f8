/**
 * One turn: from the input that started it to its single `turn.ended`. Inputs steered in while
 * it runs join this same object, so whoever holds it sees the whole turn.
 *
 * A running turn holds its events (deltas too); an ended one lets them go and reads its
 * durable events back from the session's kept events, so that a long session does not hold
 * every turn it ever ran. A reader that began before the end keeps what it reads from.
 */
import type { CanonicalEvent, ErrorInfo, Outcome, Usage } from "../../events/canonical.js";
import { ChangeNotifier } from "../../util/change-notifier.js";

export interface TurnResult {
  outcome: Outcome;
  /** The final text: the texts of the last step that produced text. */
  text: string;
  usage?: Usage;
  reason?: string;
  error?: ErrorInfo;
}

/** Where an ended turn reads its durable events back: the session's kept events. */
export interface TurnHistory {
  /** Kept durable events with `after < seq <= upTo`, at most `limit`, in `seq` order. */
  durableBetween(after: number, upTo: number, limit: number): Promise<CanonicalEvent[]>;
}

/** How many kept events an ended turn's reader reads at a time. */
const PAGE = 256;

export class Turn {
  readonly id: string;
  /** The events so far, while the turn runs; once it ended, only without a history to read. */
  #events: CanonicalEvent[] = [];
  #started = false;
  /** The seqs of its first and last durable events: an ended turn reads them back between. */
  #firstSeq: number | undefined;
  #lastSeq = 0;
  readonly #history: TurnHistory | undefined;
  readonly #changes = new ChangeNotifier();
  #result: TurnResult | undefined;
  #resolve: (result: TurnResult) => void = () => {};
  readonly #done: Promise<TurnResult>;

  /**
   * @internal Turns come from `Session.send` / `runningTurn`, not from users.
   * Without a `history`, an ended turn keeps its durable events itself (deltas are dropped).
   */
  constructor(id: string, history?: TurnHistory) {
    this.id = id;
    this.#history = history;
    this.#done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** `pending` until `turn.started`, then `running` until `turn.ended`. */
  get state(): "pending" | "running" | "ended" {
    if (this.#result !== undefined) return "ended";
    return this.#started ? "running" : "pending";
  }

  /**
   * Asks of this turn still waiting for an answer (`permission.asked` / `question.asked`
   * events): while there are some, the turn waits on the user.
   */
  get waitingFor(): CanonicalEvent[] {
    if (this.#result !== undefined) return [];
    const answered = new Set(
      this.#events.flatMap((event) =>
        event.type === "permission.replied" ||
        event.type === "question.replied" ||
        event.type === "question.rejected"
          ? [event.data.requestId]
          : [],
      ),
    );
    return this.#events.filter(
      (event) =>
        (event.type === "permission.asked" || event.type === "question.asked") &&
        !answered.has(event.data.requestId),
    );
  }

  /** The turn's outcome, final text and usage, once it has ended. */
  done(): Promise<TurnResult> {
    return this.#done;
  }

  /**
   * Every event of the turn from its start (those already seen first), ending after
   * `turn.ended`. Once the turn has ended, only its durable events are left to read.
   */
  async *events(options: { signal?: AbortSignal } = {}): AsyncIterable<CanonicalEvent> {
    if (this.#result !== undefined && this.#history !== undefined) {
      yield* this.#readBack(this.#history);
      return;
    }
    // This reader's own hold on the events: the turn lets go of them when it ends, not it.
    const events = this.#events;
    let index = 0;
    const waiter = this.#changes.waiter(options.signal, `reading turn ${this.id}`);
    try {
      for (;;) {
        while (index < events.length) {
          const event = events[index++];
          if (event === undefined) continue;
          yield event;
          if (event.type === "turn.ended") return;
        }
        await waiter.wait();
      }
    } finally {
      waiter.close();
    }
  }

  /** The durable events of this ended turn, paged from the session's kept events. */
  async *#readBack(history: TurnHistory): AsyncIterable<CanonicalEvent> {
    let after = (this.#firstSeq ?? 1) - 1;
    while (after < this.#lastSeq) {
      const page = await history.durableBetween(after, this.#lastSeq, PAGE);
      if (page.length === 0) return;
      for (const event of page) {
        after = event.seq ?? after;
        if (event.turnId === this.id) yield event;
      }
    }
  }

  /** The texts of the latest step that finished one: what the turn has said so far. */
  partialText(): string {
    if (this.#result !== undefined) return this.#result.text;
    const texts = this.#events.filter((event) => event.type === "text.ended");
    const lastStep = texts.at(-1)?.data.stepId;
    return texts
      .filter((event) => event.data.stepId === lastStep)
      .map((event) => event.data.text)
      .join("");
  }

  /** @internal The session hands the turn its events. */
  push(event: CanonicalEvent): void {
    if (this.#result !== undefined) return;
    this.#events.push(event);
    if (event.type === "turn.started") this.#started = true;
    if (event.seq !== undefined) {
      this.#firstSeq ??= event.seq;
      this.#lastSeq = event.seq;
    }
    if (event.type === "turn.ended") {
      const { outcome, text, usage, reason, error } = event.data;
      this.#result = {
        outcome,
        text: text ?? "",
        ...(usage === undefined ? {} : { usage }),
        ...(reason === undefined ? {} : { reason }),
        ...(error === undefined ? {} : { error }),
      };
      this.#resolve(this.#result);
      // Readers under way keep the array they read; the turn keeps what it reads back from.
      this.#events = this.#history === undefined ? this.#events.filter((kept) => kept.durable) : [];
    }
    this.#changes.notify();
  }
}
