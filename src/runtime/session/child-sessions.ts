/**
 * The child sessions of a session's subagents: each one's canonical events in a log of its
 * own, kept in the store under the child's own id like any session's, so that memory stays
 * bounded however much subagents do, and an adopted session still has its children's events.
 */
import { UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { Store } from "../../store/store.js";
import type { Logger } from "../../util/logger.js";
import { EventLog } from "./event-log.js";

/** A subagent's child session, as its parent session follows it. */
export interface ChildSession {
  readonly id: string;
  /** The seq of its last durable event (0 before the first): resume `events({ after })` from it. */
  readonly lastSeq: number;
  events(options?: { after?: number; signal?: AbortSignal }): AsyncIterable<CanonicalEvent>;
  transcript(): Promise<CanonicalEvent[]>;
}

export interface ChildSessionsOptions {
  parentId: string;
  store: Store | undefined;
  logger: Logger;
}

export class ChildSessions {
  readonly #logs = new Map<string, EventLog>();
  /** The children the parent's events named (`subagent.started`), kept or live. */
  readonly #named = new Set<string>();
  readonly #options: ChildSessionsOptions;
  #closed = false;

  constructor(options: ChildSessionsOptions) {
    this.#options = options;
  }

  /** The child session `childSessionId`; a UsageError unless a `subagent.started` named it. */
  get(childSessionId: string): ChildSession {
    const known = this.#logs.has(childSessionId) || this.#named.has(childSessionId);
    if (!known) {
      throw new UsageError(
        `${JSON.stringify(childSessionId)} is not a child session of ${this.#options.parentId}; ` +
          "take the id from a subagent.started event",
      );
    }
    const log = this.log(childSessionId);
    return {
      id: childSessionId,
      get lastSeq() {
        return log.lastSeq;
      },
      events: (options = {}) => log.read(options.after ?? 0, options.signal),
      transcript: () => log.durable(),
    };
  }

  /** Notes a child the parent's event names (the parent tracks every event it keeps). */
  note(event: CanonicalEvent): void {
    if (event.type === "subagent.started") this.#named.add(event.data.childSessionId);
  }

  /** The log of a child's events, made when first named (closed already once these are). */
  log(childSessionId: string): EventLog {
    let log = this.#logs.get(childSessionId);
    if (log === undefined) {
      const { store, logger } = this.#options;
      log = new EventLog({
        ...(store === undefined ? {} : { store: { store, sessionId: childSessionId } }),
        logger,
      });
      this.#logs.set(childSessionId, log);
      if (this.#closed) void log.close();
    }
    return log;
  }

  /** Ends every child's readers, and those of children named later. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#logs.values()].map((log) => log.close()));
  }
}
