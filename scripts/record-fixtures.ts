/**
 * `npm run fixtures:record [-- name …]`: re-records the repository's OpenCode 1.18.33
 * fixtures from the real server and the scripted model, and shows, per fixture, what changed
 * once ids, times and ports are normalised (a `diff -u` of the normalised views).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeTranscript } from "../src/transport/transcript/normalize.js";
import { formatTranscript, readTranscript } from "../src/transport/transcript/transcript.js";
import { scenarios } from "../test/scenarios/index.js";
import { fixtureFileOf, recordScenario } from "../test/scenarios/record.js";

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !scenarios.some((scenario) => scenario.name === name));
if (unknown.length > 0) {
  console.error(`unknown scenario(s): ${unknown.join(", ")}`);
  console.error(`known: ${scenarios.map((scenario) => scenario.name).join(", ")}`);
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), "ocb-record-"));
let failed = 0;
try {
  for (const scenario of scenarios) {
    if (wanted.length > 0 && !wanted.includes(scenario.name)) continue;
    const file = fixtureFileOf(scenario);
    process.stdout.write(`${scenario.name}: recording… `);
    try {
      const entries = await recordScenario(scenario);
      const before = existsSync(file)
        ? normalizeTranscript(readTranscript(file).map(({ entry }) => entry))
        : undefined;
      writeFileSync(file, formatTranscript(entries));
      const after = normalizeTranscript(entries);
      if (before === undefined) {
        console.log(`new (${entries.length} entries)`);
      } else if (JSON.stringify(before) === JSON.stringify(after)) {
        console.log("unchanged once normalised");
      } else {
        console.log("CHANGED once normalised:");
        showDiff(scenario.name, before, after);
      }
    } catch (error) {
      failed++;
      console.log("FAILED");
      console.error(error);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exitCode = failed > 0 ? 1 : 0;

function showDiff(name: string, before: unknown, after: unknown): void {
  const a = join(scratch, `${name}.committed.json`);
  const b = join(scratch, `${name}.recorded.json`);
  writeFileSync(a, `${JSON.stringify(before, null, 2)}\n`);
  writeFileSync(b, `${JSON.stringify(after, null, 2)}\n`);
  const result = spawnSync("diff", ["-u", a, b], { encoding: "utf8" });
  console.log(result.stdout || result.error?.message || "(diff printed nothing)");
}
