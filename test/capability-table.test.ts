import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  CAPABILITY_DESCRIPTIONS,
  CAPABILITY_TABLE_PAGE,
  capabilityTable,
  capabilityTableCells,
  replaceCapabilityTable,
  TABLE_END,
  TABLE_START,
  tableCells,
} from "../scripts/capability-table.js";
import { BACKEND_KINDS } from "../src/backends/backend.js";
import { BACKEND_CAPABILITIES } from "../src/backends/capabilities.js";

describe("the capability table", () => {
  it("has a row per capability and a column per backend, from the objects", () => {
    const cells = tableCells(capabilityTable());
    expect(cells[0]).toEqual(["capability", ...BACKEND_KINDS.map((kind) => `\`${kind}\``)]);
    expect(cells).toHaveLength(1 + Object.keys(CAPABILITY_DESCRIPTIONS).length);
    const deltas = cells.find((row) => row[0] === CAPABILITY_DESCRIPTIONS.streamingDeltas);
    expect(deltas).toEqual([
      CAPABILITY_DESCRIPTIONS.streamingDeltas,
      ...BACKEND_KINDS.map((kind) => (BACKEND_CAPABILITIES[kind].streamingDeltas ? "yes" : "no")),
    ]);
  });

  it("is the one in docs/library.md (run `npm run docs:capabilities` after changing a capability)", () => {
    const page = readFileSync(new URL(`../${CAPABILITY_TABLE_PAGE}`, import.meta.url), "utf8");
    expect(capabilityTableCells(page)).toEqual(tableCells(capabilityTable()));
  });

  it("replaces only what is between the markers, and refuses a document without them", () => {
    const document = `before\n${TABLE_START}\nold\n${TABLE_END}\nafter`;
    const replaced = replaceCapabilityTable(document, "| a |");
    expect(replaced).toBe(`before\n${TABLE_START}\n\n| a |\n\n${TABLE_END}\nafter`);
    expect(() => replaceCapabilityTable("no markers", "| a |")).toThrow(/markers/);
  });
});
