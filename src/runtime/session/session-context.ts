/**
 * What a session has spent and what its model's context holds (`Session.context`), from its
 * kept step events and those of its subagents' child sessions: the usage OpenCode reported
 * for each step, summed (`usage-tally.ts`), never a second accounting.
 */

import type { CanonicalEvent, ModelRef, Usage } from "../../events/canonical.js";
import { addUsage, usageTallyOf } from "../../events/usage-tally.js";

/** A session's spending and context, as `Session.context()` gives them. */
export interface SessionContext {
  /** What the session's own steps spent: tokens and cost, summed (absent before its first step). */
  spent?: Usage;
  /** What each subagent's child session spent (its steps summed), in the order they started. */
  children: { sessionId: string; spent?: Usage }[];
  /** `spent` and the children's together. */
  total?: Usage;
  /** One turn's spending: the turn asked for, else the latest one (absent before the first). */
  turn?: { turnId: string; spent?: Usage; running: boolean };
  /**
   * The latest step's context: the tokens it held (its input, cached input, output and
   * reasoning), its model, and that model's context limit where the server's catalog has one.
   */
  context?: { tokens: number; model?: ModelRef; limit?: number };
}

/** The children's transcripts read at most (a bound on what one call reads). */
export const MAX_CHILDREN_COUNTED = 100;

/**
 * `SessionContext` from a session's kept events (`children`: each child's, by id). Without
 * `turnId` the turn shown is the latest one; `limit` is the latest step's model's context window.
 */
export function sessionContextOf(
  events: readonly CanonicalEvent[],
  children: ReadonlyMap<string, readonly CanonicalEvent[]>,
  options: { turnId?: string; limit?: number } = {},
): SessionContext {
  const own = usageTallyOf(events);
  const childSpent = [...children].map(([sessionId, childEvents]) => {
    const spent = usageTallyOf(childEvents).total;
    return { sessionId, ...(spent === undefined ? {} : { spent }) };
  });
  const total = childSpent.reduce<Usage | undefined>(
    (sum, child) => addUsage(sum, child.spent),
    own.total,
  );
  const turnId = options.turnId ?? latestTurnId(events);
  const turn = turnId === undefined ? undefined : turnOf(events, turnId);
  const model = latestModel(events);
  const limit = options.limit;
  return {
    ...(own.total === undefined ? {} : { spent: own.total }),
    children: childSpent,
    ...(total === undefined ? {} : { total }),
    ...(turn === undefined ? {} : { turn }),
    ...(own.contextTokens === undefined
      ? {}
      : {
          context: {
            tokens: own.contextTokens,
            ...(model === undefined ? {} : { model }),
            ...(limit === undefined ? {} : { limit }),
          },
        }),
  };
}

/** The child sessions the session's subagents ran, in the order they started. */
export function childSessionIds(events: readonly CanonicalEvent[]): string[] {
  const ids = events.flatMap((event) =>
    event.type === "subagent.started" ? [event.data.childSessionId] : [],
  );
  return [...new Set(ids)].slice(0, MAX_CHILDREN_COUNTED);
}

/** The inputs delivered into `turnId` (the ones whose steps are the turn's). */
export function turnInputIds(events: readonly CanonicalEvent[], turnId: string): string[] {
  return events.flatMap((event) =>
    event.type === "input.delivered" && event.turnId === turnId ? [event.data.inputId] : [],
  );
}

function latestTurnId(events: readonly CanonicalEvent[]): string | undefined {
  return events.findLast((event) => event.type === "turn.started")?.turnId;
}

function turnOf(
  events: readonly CanonicalEvent[],
  turnId: string,
): SessionContext["turn"] | undefined {
  const ofTurn = events.filter((event) => event.turnId === turnId);
  if (!ofTurn.some((event) => event.type === "turn.started")) return undefined;
  const spent = usageTallyOf(ofTurn).total;
  const running = !ofTurn.some((event) => event.type === "turn.ended");
  return { turnId, ...(spent === undefined ? {} : { spent }), running };
}

/** The model of the latest step that named one. */
export function latestModel(events: readonly CanonicalEvent[]): ModelRef | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type === "step.started" && event.data.model !== undefined) return event.data.model;
  }
  return undefined;
}
