/**
 * A session's asks waiting for an answer (permissions and questions), followed from its
 * canonical events, and the timers that answer them by the session's timeout policy when
 * nobody does. The answers themselves go through the session (`answer`), as a user's would.
 */
import { UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { Logger } from "../../util/logger.js";

/** An ask waiting for an answer. */
export interface PendingAsk {
  kind: "permission" | "question";
  requestId: string;
  turnId?: string;
  /** The `permission.asked` / `question.asked` event (patterns, diff, questions, …). */
  event: CanonicalEvent;
}

/** Answers asks nobody answered in time: permissions with `permission` (default `reject`), questions rejected. */
export interface AskTimeout {
  afterMs: number;
  permission?: "once" | "reject";
}

/** How an ask nobody answered in time is answered. */
export type TimeoutAnswer =
  | { kind: "permission"; requestId: string; reply: "once" | "reject"; message: string }
  | { kind: "question"; requestId: string; reject: true };

export interface PendingAsksOptions {
  sessionId: string;
  logger: Logger;
  /** Answers asks left unanswered this long (default: they wait for as long as it takes). */
  timeout?: AskTimeout | undefined;
  /** Whether a turn the session knows has ended. */
  turnEnded: (turnId: string) => boolean;
  /** Gives the answer of an ask whose timeout passed (`Session.replyPermission` / `rejectQuestion`). */
  answer: (answer: TimeoutAnswer) => Promise<void>;
}

export class PendingAsks {
  /** By request id, oldest first. */
  readonly #asks = new Map<string, PendingAsk>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #options: PendingAsksOptions;
  #closed = false;

  constructor(options: PendingAsksOptions) {
    this.#options = options;
  }

  /** Asks waiting for an answer, oldest first. */
  list(): PendingAsk[] {
    return [...this.#asks.values()];
  }

  get size(): number {
    return this.#asks.size;
  }

  /** The ask `requestId` of `kind`, waiting; a UsageError names what is wrong otherwise. */
  waiting(requestId: string, kind: PendingAsk["kind"]): PendingAsk {
    const ask = this.#asks.get(requestId);
    if (ask?.kind !== kind) {
      throw new UsageError(
        `no ${kind} ask ${JSON.stringify(requestId)} is waiting in session ${this.#options.sessionId} ` +
          "(answered already, or not one of this session's)",
      );
    }
    return ask;
  }

  /** Keeps the asks waiting for an answer, and arms their timeouts. */
  track(event: CanonicalEvent): void {
    switch (event.type) {
      case "permission.asked":
      case "question.asked": {
        // An ask that comes after its turn's end (held for its call, or for its diff, while
        // the run was stopped) waits on nothing: its run is over, and kept it would leave the
        // session busy for good.
        if (event.turnId !== undefined && this.#options.turnEnded(event.turnId)) {
          this.#options.logger.debug("an ask came after its turn ended; not waiting on it", {
            sessionId: this.#options.sessionId,
            requestId: event.data.requestId,
          });
          return;
        }
        const ask: PendingAsk = {
          kind: event.type === "permission.asked" ? "permission" : "question",
          requestId: event.data.requestId,
          ...(event.turnId === undefined ? {} : { turnId: event.turnId }),
          event,
        };
        this.#asks.set(ask.requestId, ask);
        this.#arm(ask);
        return;
      }
      case "permission.replied":
      case "question.replied":
      case "question.rejected":
        this.#forget(event.data.requestId);
        return;
      case "turn.ended":
        // A run that ended (interrupted, failed) takes its unanswered asks with it.
        for (const ask of this.list()) if (ask.turnId === event.turnId) this.#forget(ask.requestId);
        return;
      // The rest open or close no ask.
      default:
        return;
    }
  }

  /** Stops the timers: a closed session answers nothing by itself any more. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  #forget(requestId: string): void {
    this.#asks.delete(requestId);
    clearTimeout(this.#timers.get(requestId));
    this.#timers.delete(requestId);
  }

  #arm(ask: PendingAsk): void {
    const { timeout: policy, logger, sessionId } = this.#options;
    if (policy === undefined || this.#closed) return;
    clearTimeout(this.#timers.get(ask.requestId)); // asked again: one answer, on the latest timer
    const timer = setTimeout(() => {
      this.#timers.delete(ask.requestId);
      if (!this.#asks.has(ask.requestId)) return;
      logger.info("answering an ask nobody answered", { sessionId, requestId: ask.requestId });
      this.#options
        .answer(timeoutAnswer(ask, policy))
        .catch((error: unknown) =>
          logger.warn("answering an ask on timeout failed", { sessionId, error }),
        );
    }, policy.afterMs);
    timer.unref();
    this.#timers.set(ask.requestId, timer);
  }
}

function timeoutAnswer(ask: PendingAsk, policy: AskTimeout): TimeoutAnswer {
  if (ask.kind === "question") return { kind: "question", requestId: ask.requestId, reject: true };
  const seconds = Math.round(policy.afterMs / 1000);
  return {
    kind: "permission",
    requestId: ask.requestId,
    reply: policy.permission ?? "reject",
    message: `no answer within ${seconds} s`,
  };
}

/** Refuses a permission reply that is not one of the three OpenCode knows. */
export function checkPermissionReply(
  reply: unknown,
): asserts reply is "once" | "always" | "reject" {
  if (reply !== "once" && reply !== "always" && reply !== "reject") {
    throw new UsageError(
      `reply must be "once", "always" or "reject", got ${JSON.stringify(reply)}`,
    );
  }
}

/** Refuses answers that are not one list of strings per question. */
export function checkQuestionAnswers(answers: unknown): asserts answers is string[][] {
  const valid =
    Array.isArray(answers) &&
    answers.every((answer) => Array.isArray(answer) && answer.every((x) => typeof x === "string"));
  if (!valid) {
    throw new UsageError(
      'answers is one list of strings per question asked, for example [["yes"]]',
    );
  }
}
