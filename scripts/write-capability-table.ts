/**
 * Writes the backend capability table (from `BACKEND_CAPABILITIES`) into the library guide
 * between its markers: `npm run docs:capabilities`. A test fails when the guide and the code
 * disagree.
 */
import { readFileSync, writeFileSync } from "node:fs";
import {
  CAPABILITY_TABLE_PAGE,
  capabilityTable,
  replaceCapabilityTable,
} from "./capability-table.js";

const path = new URL(`../${CAPABILITY_TABLE_PAGE}`, import.meta.url);
writeFileSync(path, replaceCapabilityTable(readFileSync(path, "utf8"), capabilityTable()));
process.stdout.write(`${CAPABILITY_TABLE_PAGE}: capability table written\n`);
