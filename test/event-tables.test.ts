import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { EVENT_TABLES, EVENT_TABLES_PAGE, eventTable } from "../scripts/event-tables.js";
import { sectionTableCells, tableCells } from "../scripts/generated-section.js";
import { CANONICAL_TYPES } from "../src/events/canonical.js";
import { aboutEvent, DURABLE_EVENTS, EPHEMERAL_EVENTS } from "../src/events/event-definitions.js";

const page = readFileSync(new URL(`../${EVENT_TABLES_PAGE}`, import.meta.url), "utf8");
const definitions = Object.entries({ ...DURABLE_EVENTS, ...EPHEMERAL_EVENTS });

describe("the canonical event tables", () => {
  it("are the ones in docs/events.md (run `npm run docs:events` after changing an event type)", () => {
    for (const { markers, events } of EVENT_TABLES) {
      expect(sectionTableCells(page, markers)).toEqual(tableCells(eventTable(events)));
    }
  });

  it("list every canonical type once, with what it means and an example", () => {
    const rows = EVENT_TABLES.flatMap(({ markers }) => sectionTableCells(page, markers).slice(1));
    expect(rows.map(([type]) => type)).toEqual(CANONICAL_TYPES.map((type) => `\`${type}\``));
    for (const [, description, example] of rows) {
      expect(description).not.toBe("");
      expect(example).toMatch(/^`\{.*\}`$/);
    }
  });

  it("show examples that their payload schemas accept as they are", () => {
    for (const [type, data] of definitions) {
      const { example } = aboutEvent(data);
      // Strict: an example with a field the schema does not know would document a wrong shape.
      const strict = data instanceof z.ZodObject ? data.strict() : data;
      expect({ type, parsed: strict.safeParse(example).success }).toEqual({ type, parsed: true });
    }
  });
});
