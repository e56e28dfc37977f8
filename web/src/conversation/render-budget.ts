/**
 * How much of a conversation is drawn at first, and how much more each time the reader goes
 * further back, in parts (see render-window). About two turns of sixty tool calls: enough to
 * fill a tall screen many times, a tenth of a session of ten thousand events.
 *
 * `localStorage["ocb.renderBudget"]` (a positive whole number) overrides it: a debug knob, for
 * the browser test to window a conversation of a few turns, and for trying sizes by hand.
 */
const DEFAULT_BUDGET = 150;
const KNOB = "ocb.renderBudget";

export function renderBudget(): number {
  let set: string | null = null;
  try {
    set = localStorage.getItem(KNOB);
  } catch {
    // Storage refused (a sandboxed frame): the default.
  }
  const budget = Number(set);
  return set !== null && Number.isInteger(budget) && budget > 0 ? budget : DEFAULT_BUDGET;
}
