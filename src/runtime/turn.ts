/**
 * One turn: from the input that started it to its single `turn.ended`. Inputs steered in while
 * it runs join this same object, so whoever holds it sees the whole turn.
 */
import type { CanonicalEvent, ErrorInfo, Outcome, Usage } from "../events/canonical.js";
import { ChangeNotifier } from "../util/change-notifier.js";

export interface TurnResult {
  outcome: Outcome;
  /** The final text: the texts of the last step that produced text. */
  text: string;
  usage?: Usage;
  reason?: string;
  error?: ErrorInfo;
}

export class Turn {
  readonly id: string;
  readonly #events: CanonicalEvent[] = [];
  readonly #changes = new ChangeNotifier();
  #result: TurnResult | undefined;
  #resolve: (result: TurnResult) => void = () => {};
  readonly #done: Promise<TurnResult>;

  constructor(id: string) {
    this.id = id;
    this.#done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** `pending` until `turn.started`, then `running` until `turn.ended`. */
  get state(): "pending" | "running" | "ended" {
    if (this.#result !== undefined) return "ended";
    return this.#events.some((event) => event.type === "turn.started") ? "running" : "pending";
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

  /** Every event of the turn from its start (those already seen first), ending after `turn.ended`. */
  async *events(options: { signal?: AbortSignal } = {}): AsyncIterable<CanonicalEvent> {
    let index = 0;
    for (;;) {
      while (index < this.#events.length) {
        const event = this.#events[index++];
        if (event === undefined) continue;
        yield event;
        if (event.type === "turn.ended") return;
      }
      await this.#changes.wait(options.signal, `reading turn ${this.id}`);
    }
  }

  /** The texts of the latest step that finished one: what the turn has said so far. */
  partialText(): string {
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
    }
    this.#changes.notify();
  }
}
