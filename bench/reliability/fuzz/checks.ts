/**
 * What must hold of a normaliser's output, whatever the input: every event valid against the
 * canonical zod schema (what the sidecar's clients validate against), a frame the parser did
 * not know kept as `native.unknown` of its type, and no throw inside the normaliser on a frame
 * its schema accepted (`normalizeSafely` keeps such a frame, but the normaliser misread it).
 */
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import type { Parsed } from "../../../src/opencode-protocol/common.js";
import { CanonicalEventSchema } from "../../../src/wire/canonical-schema.js";

export type ProblemKind = "invalid-event" | "not-kept" | "normaliser-threw" | "crash" | "sse";

export interface FrameProblem {
  kind: ProblemKind;
  detail: string;
}

/** The problems of one frame's output (`parsed` undefined: events not made from a frame). */
export function problemsOf(
  parsed: Parsed<unknown> | undefined,
  events: readonly CanonicalEvent[],
): FrameProblem[] {
  const problems: FrameProblem[] = [];
  for (const event of events) {
    const checked = CanonicalEventSchema.safeParse(event);
    if (!checked.success) {
      problems.push({
        kind: "invalid-event",
        detail: `${event.type}: ${checked.error.issues
          .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
          .join("; ")}`,
      });
    }
  }
  if (parsed === undefined) return problems;
  if (!parsed.known && !keeps(events, parsed.event.type)) {
    problems.push({
      kind: "not-kept",
      detail: `a frame of unknown type ${JSON.stringify(parsed.event.type)} made ${
        events.map((event) => event.type).join(", ") || "no event"
      }`,
    });
  }
  if (parsed.known) {
    const threw = events.find((event) => event.type === "native.unknown" && event.data.error);
    if (threw?.type === "native.unknown") {
      problems.push({
        kind: "normaliser-threw",
        detail: `${parsed.event === null ? "" : (parsed.event as { type?: string }).type}: ${threw.data.error}`,
      });
    }
  }
  return problems;
}

function keeps(events: readonly CanonicalEvent[], type: string): boolean {
  return events.some((event) => event.type === "native.unknown" && event.data.nativeType === type);
}
