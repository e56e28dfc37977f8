/**
 * Replies to asks as canonical events, exactly once each. 1.18's `/api` publishes no reply
 * events (a later build might): the backend publishes the reply itself after a reply call
 * succeeded, and passes every event through `keep`, which drops a reply already published
 * (whichever of the two came first).
 */
import { canonical } from "../events/build.js";
import type { CanonicalEvent, CanonicalEventOf } from "../events/canonical.js";
import { RecentSet } from "../util/recent-set.js";
import type { BackendKind } from "./backend.js";

/**
 * Answered asks remembered: a repeat of a reply comes soon after the first (the other of the
 * two ways it is published), so a window this long is plenty, and a long session stays bounded.
 */
export const ANSWERED_ASKS_KEPT = 500;

type ReplyType = "permission.replied" | "question.replied" | "question.rejected";

export class AnsweredAsks {
  readonly #answered = new RecentSet<string>(ANSWERED_ASKS_KEPT);

  constructor(
    private readonly sessionId: string,
    private readonly backend: BackendKind,
  ) {}

  /** How many answered asks are remembered (bounded by `ANSWERED_ASKS_KEPT`). */
  get answeredCount(): number {
    return this.#answered.size;
  }

  /** False for a reply to an ask already answered on the stream; notes the others. */
  keep(event: CanonicalEvent): boolean {
    if (
      event.type !== "permission.replied" &&
      event.type !== "question.replied" &&
      event.type !== "question.rejected"
    ) {
      return true;
    }
    if (this.#answered.has(event.data.requestId)) return false;
    this.#answered.add(event.data.requestId);
    return true;
  }

  /** The reply event to publish after a successful reply call, unless one was published. */
  replied<T extends ReplyType>(
    type: T,
    data: CanonicalEventOf<T>["data"],
    turnId: string | undefined,
  ): CanonicalEvent | undefined {
    if (this.#answered.has(data.requestId)) return undefined;
    this.#answered.add(data.requestId);
    const native = { backend: this.backend, type: "reply", id: `reply_${data.requestId}` };
    return canonical({ sessionId: this.sessionId, turnId, at: Date.now(), native }, 0, type, data);
  }
}
