/**
 * The delta rule (docs/events.md) read off one turn's canonical events: for each text,
 * reasoning and tool-input part, its deltas in order, how many came after its end, and its
 * ended value. Shared by the end-to-end deltas test and the reliability suite's long-parts
 * scenario, which runs the same turns with ten times the deltas.
 */
import type { CanonicalEvent } from "../../../src/events/canonical.js";

export type PartKind = "text" | "reasoning" | "tool.input";

export interface PartStream {
  deltas: string[];
  /** Deltas handed out after the part's end (the rule says none). */
  lateDeltas: number;
  ended?: string;
}

/** Each part of the turn, by `"<kind> <id>"`: its deltas in order, and its ended value. */
export function partsOf(events: readonly CanonicalEvent[]): Map<string, PartStream> {
  const parts = new Map<string, PartStream>();
  const part = (kind: PartKind, id: string): PartStream => {
    const key = `${kind} ${id}`;
    let found = parts.get(key);
    if (found === undefined) {
      found = { deltas: [], lateDeltas: 0 };
      parts.set(key, found);
    }
    return found;
  };
  const delta = (stream: PartStream, text: string): void => {
    if (stream.ended === undefined) stream.deltas.push(text);
    else stream.lateDeltas++;
  };
  for (const event of events) {
    switch (event.type) {
      case "text.delta":
        delta(part("text", event.data.partId), event.data.delta);
        break;
      case "text.ended":
        part("text", event.data.partId).ended = event.data.text;
        break;
      case "reasoning.delta":
        delta(part("reasoning", event.data.partId), event.data.delta);
        break;
      case "reasoning.ended":
        part("reasoning", event.data.partId).ended = event.data.text;
        break;
      case "tool.input.delta":
        delta(part("tool.input", event.data.callId), event.data.delta);
        break;
      case "tool.input.ended":
        part("tool.input", event.data.callId).ended = event.data.input;
        break;
      default:
        break;
    }
  }
  return parts;
}

/** The parts of `kind` only. */
export function partsOfKind(
  parts: ReadonlyMap<string, PartStream>,
  kind: PartKind,
): Map<string, PartStream> {
  return new Map([...parts].filter(([key]) => key.startsWith(`${kind} `)));
}

/**
 * How a part's joined deltas compare to its ended value, short enough to print: its length,
 * whether the two are the same, and a little text around where they first differ.
 */
export function summary(joined: string, ended: string | undefined) {
  let differAt = 0;
  const whole = ended ?? "";
  while (differAt < joined.length && joined[differAt] === whole[differAt]) differAt++;
  return {
    ended: ended !== undefined,
    length: joined.length,
    same: differAt === joined.length && joined.length === whole.length,
    around: joined.slice(Math.max(0, differAt - 10), differAt + 10),
  };
}

/** What is wrong with `part` by the rule (nothing: `[]`). */
export function ruleBroken(key: string, part: PartStream): string[] {
  const joined = summary(part.deltas.join(""), part.ended);
  return [
    ...(part.ended === undefined ? [`${key}: never ended`] : []),
    ...(part.lateDeltas > 0 ? [`${key}: ${part.lateDeltas} deltas after its end`] : []),
    ...(part.ended !== undefined && !joined.same
      ? [
          `${key}: deltas join to ${joined.length} of ${part.ended.length} chars, near ${JSON.stringify(joined.around)}`,
        ]
      : []),
  ];
}

/** The prompts of the long parts: `count` deltas of one part of `kind`. */
export function longPartPrompt(kind: PartKind, count: number): string {
  switch (kind) {
    case "text":
      return `[[slow ${count} 0]]`;
    case "reasoning":
      return `[[chunks ${count}]] [[reasoning ${"思".repeat(count)}]] [[reply done]]`;
    case "tool.input":
      return `[[chunks ${count}]] ${echoCall("x".repeat(count))}`;
  }
}

/** A bash tool call that echoes `text`, then a reply: its input is streamed as deltas on `serve`. */
export function echoCall(text: string): string {
  return `[[tool bash ${JSON.stringify({ command: `echo ${text}`, description: "echo" })}]] [[then ok]]`;
}

/**
 * Deltas per long part in `npm test` (test/e2e/deltas.test.ts): enough to be many bursts on
 * both surfaces; the reliability suite's long-parts scenario runs ten times as many.
 */
export const LONG_PART_DELTAS_IN_TESTS = 1_000;
