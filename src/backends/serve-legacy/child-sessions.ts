/**
 * The child sessions of subagents (the `task` tool), followed on the same legacy `/event`
 * stream as their parent: a session whose `parentID` is the parent (or one of its children)
 * gets its own normaliser, its events go to the child's stream, and its asks also surface on
 * the parent's turn, whose run waits on them.
 */
import type { CanonicalEvent, CanonicalEventOf } from "../../events/canonical.js";
import {
  initialLegacyState,
  type LegacyNormalizerState,
  normalizeLegacyEvent,
} from "../../events/normalize-legacy.js";
import { normalizeSafely } from "../../events/safe-normalize.js";
import type { Parsed } from "../../opencode-protocol/common.js";
import type { LegacyEvent } from "../../opencode-protocol/legacy/events.js";
import type { Logger } from "../../util/logger.js";

type Ask = CanonicalEventOf<"permission.asked"> | CanonicalEventOf<"question.asked">;

export interface ChildSessionSinks {
  events: (event: CanonicalEvent) => void;
  ask: (event: Ask) => void;
  logger: Logger;
}

export class ChildSessions {
  readonly #parentId: string;
  readonly #sinks: ChildSessionSinks;
  readonly #states = new Map<string, LegacyNormalizerState>();

  constructor(parentId: string, sinks: ChildSessionSinks) {
    this.#parentId = parentId;
    this.#sinks = sinks;
  }

  /** An event of another session: followed if it is (or now becomes) a child of ours. */
  apply(sessionId: string, parsed: Parsed<LegacyEvent>): void {
    let state = this.#states.get(sessionId);
    if (state === undefined) {
      if (!this.#isOurChild(parsed)) return;
      state = initialLegacyState(sessionId);
    }
    try {
      const result = normalizeSafely(normalizeLegacyEvent, state, parsed, {
        backend: "serve-legacy",
      });
      this.#states.set(sessionId, result.state);
      for (const event of result.events) {
        if (event.type === "permission.asked" || event.type === "question.asked") {
          this.#sinks.ask({ ...event, data: { ...event.data, childSessionId: sessionId } } as Ask);
        }
        this.#sinks.events(event);
      }
    } catch (error) {
      this.#sinks.logger.error("a child session's event could not be handled", {
        sessionId,
        type: parsed.event.type,
        error,
      });
    }
  }

  #isOurChild(parsed: Parsed<LegacyEvent>): boolean {
    const event = parsed.event as { type: string; properties?: { info?: { parentID?: unknown } } };
    if (event.type !== "session.created") return false;
    const parent = event.properties?.info?.parentID;
    return parent === this.#parentId || (typeof parent === "string" && this.#states.has(parent));
  }
}
