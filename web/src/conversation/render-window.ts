/**
 * Which messages of a long conversation are drawn: a window at its end, so that opening a
 * session of thousands of events creates the DOM of its last turns only, not all of it. The
 * window is measured in drawn weight (a part, a tool card or a text, counts 1; a user message
 * counts 1) and holds whole turns only; it grows backwards by more whole turns. Pure: the
 * view keeps where the window starts and draws `messages.slice(start)`.
 */
import type { Message } from "opencode-bridge/client";

/** What drawing a message costs, roughly in DOM: its parts (a message of none draws a line). */
export function messageWeight(message: Message): number {
  return message.role === "user" ? 1 : Math.max(1, message.parts.length);
}

/**
 * The indexes a window may start at, ascending: a user message that begins a turn, or 0. A
 * steer delivered into a running turn is a user message in the middle of that turn (its
 * messages before and after it share the turn): starting there would cut the turn.
 */
export function turnStarts(messages: readonly Message[]): number[] {
  const first = new Map<string, number>();
  messages.forEach((message, index) => {
    const turnId = message.turnId;
    if (turnId !== undefined && !first.has(turnId)) first.set(turnId, index);
  });
  const starts: number[] = [];
  // The earliest index a turn seen from here to the end began at.
  let reach = messages.length;
  for (let index = messages.length - 1; index >= 0; index--) {
    const turnId = messages[index]?.turnId;
    if (turnId !== undefined) reach = Math.min(reach, first.get(turnId) ?? index);
    if (index === 0 || (messages[index]?.role === "user" && reach >= index)) starts.push(index);
  }
  return starts.reverse();
}

/** What drawing a message costs; 0 for one that is not drawn (a queued input, a turn that never ran). */
export type Weigh = (message: Message) => number;

/**
 * Where a window that ends at `end` starts: the earliest turn start whose turns up to `end`
 * weigh no more than `budget`, and at least back to the last turn before `end` that draws
 * something, however much it weighs (the last user message and what followed are always
 * drawn). 0 for an `end` of 0.
 */
export function windowStart(
  messages: readonly Message[],
  end: number,
  budget: number,
  weigh: Weigh = messageWeight,
): number {
  const starts = turnStarts(messages).filter((start) => start < end);
  let weight = 0;
  let chosen = end;
  for (let at = starts.length - 1; at >= 0; at--) {
    const start = starts[at] ?? 0;
    let added = 0;
    for (let index = start; index < chosen; index++) added += weigh(messages[index] as Message);
    if (weight > 0 && weight + added > budget) break;
    weight += added;
    chosen = start;
  }
  return Math.min(chosen, end);
}

/**
 * A kept window start that still fits the messages as they are now: on a turn start (a
 * message moved or went since it was chosen), and no later than the last turn that draws
 * something (an undo took back the turns it began at).
 */
export function fitStart(
  messages: readonly Message[],
  start: number,
  weigh: Weigh = messageWeight,
): number {
  const onTurn =
    turnStarts(messages)
      .filter((at) => at <= start)
      .at(-1) ?? 0;
  return Math.min(onTurn, windowStart(messages, messages.length, 0, weigh));
}
