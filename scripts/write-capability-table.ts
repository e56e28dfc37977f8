/**
 * Writes the backend capability table (from `BACKEND_CAPABILITIES`) into README.md between its
 * markers: `npm run docs:capabilities`. A test fails when the README and the code disagree.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { capabilityTable, replaceCapabilityTable } from "./capability-table.js";

const path = new URL("../README.md", import.meta.url);
writeFileSync(path, replaceCapabilityTable(readFileSync(path, "utf8"), capabilityTable()));
process.stdout.write("README.md: capability table written\n");
