/** Replays of recorded /api fixtures: the state rebuilt from the canonical events at any point equals the normaliser's own. */
import { describe, expect, it } from "vitest";
import { recordedEvents } from "../../test/support/fixture-events.js";
import { fixturePath } from "../../test/support/fixture-files.js";
import { parseApiEvent } from "../protocol/api/events.js";
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
