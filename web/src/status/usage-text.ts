/**
 * How spending is written on the page, one way everywhere (a turn's line, the status popover):
 * tokens as the model counted them (input, output, reasoning; cached reads apart) and the cost.
 */
import type { Usage } from "opencode-bridge/client";

// One formatter for every number shown (toLocaleString builds one per call: slow on a long session).
export const COUNT = new Intl.NumberFormat();
const COMPACT = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });

/** The tokens a usage counts: input, output and reasoning (cached reads are in the details). */
export function usageTokens(usage: Usage): number {
  const { tokens } = usage;
  return tokens.input + tokens.output + tokens.reasoning;
}

/** "1,234 in, 56 out, 7 reasoning, 890 cached": the parts that are not zero (in and out always). */
export function usageDetails(usage: Usage): string {
  const { tokens } = usage;
  return [
    `${COUNT.format(tokens.input)} in`,
    `${COUNT.format(tokens.output)} out`,
    ...(tokens.reasoning > 0 ? [`${COUNT.format(tokens.reasoning)} reasoning`] : []),
    ...(tokens.cacheRead > 0 ? [`${COUNT.format(tokens.cacheRead)} cached`] : []),
  ].join(", ");
}

/** " · $0.0123", or nothing for a free model (the demo's, a local one). */
export function costText(usage: Usage): string {
  return usage.cost > 0 ? ` · $${usage.cost.toFixed(4)}` : "";
}

/** "1,234 tokens (…) · $0.01": a usage on one line. */
export function usageLine(usage: Usage): string {
  return `${COUNT.format(usageTokens(usage))} tokens (${usageDetails(usage)})${costText(usage)}`;
}

/** "12.3K": a count that fits a button. */
export function compactCount(count: number): string {
  return COMPACT.format(count);
}
