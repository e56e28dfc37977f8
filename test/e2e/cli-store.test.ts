/**
 * End to end: the store commands as a user runs them. One real `ocb run --demo` (real server,
 * scripted model) fills a store; `sessions`, `show`, `export` and `import` then read it. All
 * run in-process through `runCli` (test/support/ocb-in-process.ts): none of this is about the
 * process itself (signals, exit: test/e2e/cli-interrupt.test.ts, cli-run.test.ts).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ocbInProcess } from "../support/ocb-in-process.js";

interface Event {
  id: string;
  seq?: number;
  sessionId: string;
  type: string;
  data: unknown;
  durable: boolean;
}

const parseLines = (text: string): unknown[] =>
  text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown);

describe("ocb sessions, show, export, import", () => {
  let dir: string;
  let store: string;
  let sessionId: string;
  let durable: Event[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ocb-cli-store-"));
    store = join(dir, "store.db");
    const run = await ocbInProcess([
      "run",
      ...["--demo", "--json", "--store", store, "--dir", dir],
      "[[reply hello store]]",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const events = parseLines(run.stdout) as Event[];
    sessionId = events[0]?.sessionId ?? "";
    durable = events.filter((event) => event.durable);
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("sessions --json lists the session with its record and event count", async () => {
    const run = await ocbInProcess(["sessions", "--store", store, "--json"]);
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout)).toEqual([
      expect.objectContaining({
        id: sessionId,
        backend: "serve",
        directory: dir,
        title: "[[reply hello store]]",
        events: durable.length,
      }),
    ]);
  });

  it("sessions prints a table with a header line and a row per session", async () => {
    const run = await ocbInProcess(["sessions", "--store", store]);
    expect(run.code).toBe(0);
    const [head, row, ...rest] = run.stdout.trim().split("\n");
    expect(head).toMatch(/^ID +BACKEND +STATE +UPDATED +EVENTS +TITLE +DIRECTORY$/);
    expect(row).toMatch(
      new RegExp(`^${sessionId} +serve +\\w+ +\\d{4}-\\d\\d-\\d\\dT\\S+Z +${durable.length} `),
    );
    expect(rest).toEqual([]);
  });

  it("sessions says so when the store is empty, without creating it", async () => {
    const empty = join(dir, "empty", "store.db");
    const run = await ocbInProcess(["sessions", "--store", empty]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^no sessions in .*empty\/store\.db yet/);
    expect(existsSync(empty)).toBe(false);
  });

  it("show prints the conversation: the input, then the reply indented under it", async () => {
    const run = await ocbInProcess(["show", sessionId, "--store", store]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("you: [[reply hello store]]\n");
    expect(run.stdout).toContain("\n  hello store\n");
    expect(run.stdout).not.toContain("\x1b["); // not a terminal: no colour
  });

  it("show refuses an unknown session with exit code 2, naming `ocb sessions`", async () => {
    const run = await ocbInProcess(["show", "nope", "--store", store]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no session "nope" in .*`ocb sessions --store /);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(run.stdout).toBe("");
  });

  it("export, import into another store, export again: the same transcript", async () => {
    const exported = await ocbInProcess(["export", sessionId, "--store", store]);
    expect(exported.code).toBe(0);
    const [header, ...events] = parseLines(exported.stdout) as [unknown, ...Event[]];
    expect(header).toMatchObject({
      format: "opencode-bridge.transcript",
      version: 1,
      session: { id: sessionId, backend: "serve", directory: dir },
    });
    // The run's durable events, as the store keeps them: numbered 1..n.
    expect(events.map(({ id, type, data }) => ({ id, type, data }))).toEqual(
      durable.map(({ id, type, data }) => ({ id, type, data })),
    );
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));

    const file = join(dir, "transcript.ndjson");
    writeFileSync(file, exported.stdout);
    const other = join(dir, "other.db");
    const imported = await ocbInProcess(["import", file, "--store", other]);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toBe(`imported ${sessionId}: ${events.length} events\n`);
    const again = await ocbInProcess(["export", sessionId, "--store", other]);
    expect(parseLines(again.stdout)).toEqual(parseLines(exported.stdout));

    const twice = await ocbInProcess(["import", file, "--store", other]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/already in .*--replace/);
    const replaced = await ocbInProcess(["import", file, "--store", other, "--replace"]);
    expect(replaced.code).toBe(0);
    expect((await ocbInProcess(["export", sessionId, "--store", other])).stdout).toBe(again.stdout);
  });

  it("import refuses a damaged file with exit code 2, naming the line, and stores nothing", async () => {
    const exported = await ocbInProcess(["export", sessionId, "--store", store]);
    const lines = exported.stdout.trim().split("\n");
    const target = join(dir, "damaged.db");
    const damages: [string, string[], RegExp][] = [
      ["not-json", [...lines.slice(0, 2), "{not json", ...lines.slice(2)], /line 3: not JSON/],
      [
        "unknown-type",
        [lines[0] ?? "", lines[1]?.replace(/"type":"[^"]+"/, '"type":"made.up"') ?? ""],
        /line 2: unknown event type "made\.up"/,
      ],
    ];
    for (const [name, content, message] of damages) {
      const file = join(dir, `${name}.ndjson`);
      writeFileSync(file, `${content.join("\n")}\n`);
      const run = await ocbInProcess(["import", file, "--store", target]);
      expect(run.code, name).toBe(2);
      expect(run.stderr, name).toMatch(message);
      expect(run.stderr, name).not.toMatch(/at .*\.ts:\d+/);
    }
    expect(existsSync(target)).toBe(false); // checked before the store is opened
  });
});
