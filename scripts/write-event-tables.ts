/**
 * Writes the canonical event tables (from `DURABLE_EVENTS` and `EPHEMERAL_EVENTS`) into
 * docs/events.md between their markers: `npm run docs:events`. A test fails when the page and
 * the definitions disagree.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { EVENT_TABLES, EVENT_TABLES_PAGE, eventTable } from "./event-tables.js";
import { replaceSection } from "./generated-section.js";

const path = new URL(`../${EVENT_TABLES_PAGE}`, import.meta.url);
let page = readFileSync(path, "utf8");
for (const { markers, events } of EVENT_TABLES) {
  page = replaceSection(page, markers, eventTable(events));
}
writeFileSync(path, page);
process.stdout.write(`${EVENT_TABLES_PAGE}: event tables written\n`);
