/**
 * Snapshots: the canonical sequence each recorded 1.18.33 `/api` fixture normalises to
 * (replays, no server). A change to the normaliser that changes any of them shows up here.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { recordedEvents } from "../../test/support/fixture-events.js";
import { fixturePath } from "../../test/support/fixture-files.js";
import { parseApiEvent } from "../opencode-protocol/api/events.js";
import { initialApiState, normalizeApiEvent } from "./normalize-api.js";

const DIRECTORY = "opencode-1.18.33";
const fixtures = readdirSync(fixturePath(DIRECTORY))
  .filter((file) => file.startsWith("api-") && file.endsWith(".transcript.ndjson"))
  .sort();

/** One readable line per canonical event: type, turn, and the data that matters. */
function summarize(file: string): string[] {
  let state = initialApiState("ses");
  const turns = new Map<string, string>();
  const lines: string[] = [];
  for (const raw of recordedEvents(fixturePath(`${DIRECTORY}/${file}`), "v2.session.events")) {
    const result = normalizeApiEvent(state, parseApiEvent(raw));
    state = result.state;
    for (const event of result.events) {
      const turn =
        event.turnId === undefined ? "-" : (turns.get(event.turnId) ?? `T${turns.size + 1}`);
      if (event.turnId !== undefined) turns.set(event.turnId, turn);
      lines.push(
        `${turn} ${event.type} ${detail(event.type, event.data as Record<string, unknown>)}`.trim(),
      );
    }
  }
  return lines;
}

function detail(type: string, data: Record<string, unknown>): string {
  switch (type) {
    case "input.admitted":
      return `${data.delivery} ${JSON.stringify(data.text)}`;
    case "step.ended":
      return String(data.finish);
    case "text.ended":
      return JSON.stringify(data.text);
    case "tool.called":
      return `${data.tool} ${JSON.stringify(data.input)}`;
    case "tool.failed":
      return JSON.stringify((data.error as { message?: string }).message);
    case "turn.ended":
      return `${data.outcome}${data.reason ? ` (${data.reason})` : ""} ${JSON.stringify(data.text)}`;
    default:
      return "";
  }
}

describe("canonical sequences of the recorded 1.18.33 /api fixtures", () => {
  it.each(fixtures)("%s", (file) => {
    const lines = summarize(file);
    const started = lines.filter((line) => line.includes(" turn.started")).length;
    const ended = lines.filter((line) => line.includes(" turn.ended")).length;
    expect(ended).toBe(started);
    expect(lines).toMatchSnapshot();
  });
});
