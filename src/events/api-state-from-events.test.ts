/** Replays of recorded /api fixtures: the state rebuilt from the canonical events at any point equals the normaliser's own. */
import { describe, expect, it } from "vitest";
import { canonicalEvent as event } from "../../test/support/canonical-event.js";
import { recordedEvents } from "../../test/support/fixture-events.js";
import { fixturePath } from "../../test/support/fixture-files.js";
import { parseApiEvent } from "../opencode-protocol/api/events.js";
import { apiStateFromEvents } from "./api-state-from-events.js";
import type { CanonicalEvent } from "./canonical.js";
import { type ApiNormalizerState, initialApiState, normalizeApiEvent } from "./normalize-api.js";

const FIXTURES = [
  "api-text-turn",
  "api-bash-tool",
  "api-steer-mid-turn",
  "api-queue-behind-turn",
  "api-interrupt-mid-tool",
  "api-provider-error",
];

describe("apiStateFromEvents (replay of recorded /api fixtures)", () => {
  for (const name of FIXTURES) {
    it(`rebuilds the normaliser's state at every point of ${name}`, () => {
      const natives = recordedEvents(
        fixturePath(`opencode-1.18.33/${name}.transcript.ndjson`),
        "v2.session.events",
      );
      let state: ApiNormalizerState = initialApiState("ses");
      const canonical: CanonicalEvent[] = [];
      for (const raw of natives) {
        const parsed = parseApiEvent(raw);
        const result = normalizeApiEvent(state, parsed);
        state = result.state;
        canonical.push(...result.events);
        const rebuilt = apiStateFromEvents(state.sessionId, canonical);
        expect({ turn: rebuilt.turn?.id, pending: [...rebuilt.pending] }).toEqual({
          turn: state.turn?.id,
          pending: [...state.pending],
        });
        expect(rebuilt.turn?.finalText ?? []).toEqual(state.turn?.finalText ?? []);
        expect(rebuilt.turn?.usage).toEqual(state.turn?.usage);
      }
    });
  }
});

describe("apiStateFromEvents (the runtime's events)", () => {
  it("keeps the running turn at the end of another (a turn whose input the running one took)", () => {
    const admitted = (turnId: string, inputId: string, delivery: "steer" | "queue") =>
      event(turnId, "input.admitted", { inputId, text: inputId, delivery });
    const rebuilt = apiStateFromEvents("ses", [
      admitted("turn_in_q", "in_q", "queue"),
      admitted("turn_in_s", "in_s", "steer"),
      event("turn_in_q", "turn.started", { inputId: "in_q" }),
      event("turn_in_q", "input.delivered", { inputId: "in_q" }),
      event("turn_in_q", "input.delivered", { inputId: "in_s" }),
      event("turn_in_q", "turn.ended", { outcome: "completed", text: "" }),
      event("turn_in_n", "turn.started", { inputId: "in_n" }),
      // The runtime ends the steer's own turn after the turn that took it, once that one ended:
      // by then the next turn may have started.
      event("turn_in_s", "turn.ended", { outcome: "completed", text: "" }),
    ]);
    expect(rebuilt.turn?.id).toBe("turn_in_n");
  });
});
