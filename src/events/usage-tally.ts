/**
 * What a session spent, and what its model's context holds, tallied from its step events: the
 * one accounting the bridge has (each step's usage as OpenCode reported it, summed into
 * `turn.ended` too), read by `Session.context()` and by the live conversation alike.
 */
import type { CanonicalEvent, Usage } from "./canonical.js";

export interface UsageTally {
  /** The usage of every step so far, summed (tokens and cost). */
  total?: Usage;
  /**
   * The tokens the latest step had in its context: its input, cached input, output and
   * reasoning (how OpenCode's own views measure a context's fill).
   */
  contextTokens?: number;
}

/** The sum of two usages (a turn's usage is the sum of its steps'). */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return {
    tokens: {
      input: a.tokens.input + b.tokens.input,
      output: a.tokens.output + b.tokens.output,
      reasoning: a.tokens.reasoning + b.tokens.reasoning,
      cacheRead: a.tokens.cacheRead + b.tokens.cacheRead,
      cacheWrite: a.tokens.cacheWrite + b.tokens.cacheWrite,
    },
    cost: a.cost + b.cost,
  };
}

/** `tally` with `event` counted in: a step's end (or failure) with usage; anything else changes nothing. */
export function tallyUsage(tally: UsageTally, event: CanonicalEvent): UsageTally {
  if (event.type !== "step.ended" && event.type !== "step.failed") return tally;
  const usage = event.data.usage;
  if (usage === undefined) return tally;
  const total = addUsage(tally.total, usage) as Usage;
  return { total, contextTokens: tokensInContext(usage) };
}

/** `tallyUsage` over `events`, in order. */
export function usageTallyOf(events: Iterable<CanonicalEvent>): UsageTally {
  let tally: UsageTally = {};
  for (const event of events) tally = tallyUsage(tally, event);
  return tally;
}

/** The tokens one step's context held. */
export function tokensInContext(usage: Usage): number {
  const { input, output, reasoning, cacheRead, cacheWrite } = usage.tokens;
  return input + output + reasoning + cacheRead + cacheWrite;
}
