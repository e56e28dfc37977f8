/**
 * Replies to asks as canonical events, exactly once each. 1.18's `/api` publishes no reply
 * events (a later build might): the backend publishes the reply itself after a reply call
 * succeeded, and passes every event through `keep`, which drops a reply already published
 * (whichever of the two came first).
 */
import { canonical } from "../events/build.js";
import type { CanonicalEvent, CanonicalEventOf } from "../events/canonical.js";
import type { BackendKind } from "./backend.js";

type ReplyType = "permission.replied" | "question.replied" | "question.rejected";

export class AnsweredAsks {
  readonly #answered = new Set<string>();

  constructor(
    private readonly sessionId: string,
    private readonly backend: BackendKind,
  ) {}

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
