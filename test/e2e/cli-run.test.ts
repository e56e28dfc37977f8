/**
 * End to end: `ocb run --demo` as a user runs it, with a real server (or `opencode run`). Most
 * run in-process through `runCli` (test/support/ocb-in-process.ts: the same commands, messages
 * and exit codes, and the run must leave no process). Two stay real `ocb` processes, for what
 * only a process shows: that it exits by itself once the turn ended, with 0 and stdout holding
 * nothing but the events; and that a usage error reaches the shell as exit code 2 with no
 * stack. Signals and SIGKILL: test/e2e/cli-interrupt.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isCanonicalType } from "../../src/events/canonical.js";
import { type CliRun, ocb } from "../support/ocb-cli.js";
import { ocbInProcess } from "../support/ocb-in-process.js";

// A 1x1 PNG (the demo provider takes images, not text files).
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

interface Event {
  type: string;
  data: Record<string, unknown>;
}

function eventsOf(run: CliRun): Event[] {
  return run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Event);
}

describe("ocb run", () => {
  it("--demo --json prints one known canonical event per line and exits 0", async () => {
    const run = await ocb(["run", "--demo", "--json", '[[tool bash {"command":"echo hi"}]]']);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; data: unknown });
    expect(events.every((event) => isCanonicalType(event.type))).toBe(true);
    const types = events.map((event) => event.type);
    expect(types).toContain("tool.called");
    expect(types.at(-1)).toBe("turn.ended");
    expect(events.at(-1)?.data).toMatchObject({ outcome: "completed" });
  });

  it("exits 1 when the turn fails, and says why", async () => {
    const run = await ocbInProcess(["run", "--demo", '[[error 400 {"error":{"message":"nope"}}]]']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/— failed: .*HTTP 400/);
  });

  it("refuses a malformed model with a clear message and exit code 2", async () => {
    const run = await ocb(["run", "--model", "nonsense", "hi"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/provider\/model/);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  });

  it("runs the turn with `opencode run` under --backend subprocess", async () => {
    const run = await ocbInProcess([
      "run",
      "--demo",
      "--json",
      "--backend",
      "subprocess",
      "[[reply via run]]",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; native?: { backend: string } });
    expect(events.map((event) => event.native?.backend)).toContain("subprocess");
    expect(events.at(-1)).toMatchObject({ type: "turn.ended", data: { text: "via run" } });
  });

  it("takes the backend from OCB_BACKEND", async () => {
    const run = await ocbInProcess(["run", "--demo", "--json", "[[reply via legacy]]"], {
      OCB_BACKEND: "serve-legacy",
    });
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; native?: { backend: string } });
    expect(events.map((event) => event.native?.backend)).toContain("serve-legacy");
  });

  it("refuses an unknown backend, naming the choices, with exit code 2", async () => {
    const run = await ocbInProcess(["run", "--demo", "hi"], { OCB_BACKEND: "telepathy" });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/OCB_BACKEND must be one of serve, serve-legacy, subprocess/);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  });

  describe("asks and attachments", () => {
    const dirs: string[] = [];
    const tempDir = () => {
      const dir = mkdtempSync(join(tmpdir(), "ocb-cli-asks-"));
      dirs.push(dir);
      return dir;
    };
    afterEach(() => {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    });
    /** The /api write tool takes `path`; the scripted model calls it, then replies "done". */
    const writePrompt = (file: string) =>
      `[[tool write ${JSON.stringify({ path: file, content: "hi" })}]] [[then done]]`;
    const askRun = (dir: string, ...extra: string[]) =>
      ocbInProcess([
        "run",
        "--demo",
        "--json",
        "--permissions",
        "ask",
        "--dir",
        dir,
        ...extra,
        writePrompt(join(dir, "file.txt")),
      ]);

    it("--approve none rejects the write: no file, and the turn goes on (exit 0)", async () => {
      const dir = tempDir();
      const run = await askRun(dir, "--approve", "none");
      expect(run.stderr).toBe("");
      const events = eventsOf(run);
      const asked = events.find((event) => event.type === "permission.asked");
      expect(asked?.data).toMatchObject({ permission: "edit" });
      const replied = events.find((event) => event.type === "permission.replied");
      expect(replied?.data).toEqual({ requestId: asked?.data.requestId, reply: "reject" });
      // Refused with a reason: the model is told and the turn goes on.
      expect(events.at(-1)).toMatchObject({ type: "turn.ended", data: { outcome: "completed" } });
      expect(run.code).toBe(0);
      expect(existsSync(join(dir, "file.txt"))).toBe(false);
    });

    it("--approve all allows the write once: the file is written and the turn completes", async () => {
      const dir = tempDir();
      const run = await askRun(dir, "--approve", "all");
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const events = eventsOf(run);
      expect(events.find((event) => event.type === "permission.replied")?.data).toMatchObject({
        reply: "once",
      });
      expect(events.at(-1)).toMatchObject({ type: "turn.ended", data: { outcome: "completed" } });
      expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe("hi");
    });

    it("without --approve and without a terminal, rejects the ask and says how to choose", async () => {
      const dir = tempDir();
      const run = await askRun(dir);
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(
        /^ocb: rejected a permission ask \(edit .*stdin is not a terminal/,
      );
      expect(run.stderr).toContain("--approve all");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(
        eventsOf(run).find((event) => event.type === "permission.replied")?.data,
      ).toMatchObject({ reply: "reject" });
      expect(existsSync(join(dir, "file.txt"))).toBe(false);
    });

    it("--file attaches a file inside --dir, a relative path read from the working directory", async () => {
      const dir = tempDir();
      const file = join(dir, "pixel.png");
      writeFileSync(file, PNG);
      const run = await ocbInProcess([
        "run",
        "--demo",
        "--json",
        "--dir",
        dir,
        "--file",
        relative(process.cwd(), file),
        "[[reply ok]]",
      ]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const admitted = eventsOf(run).find((event) => event.type === "input.admitted");
      expect(admitted?.data.files).toEqual([file]);
    });

    it("refuses --file outside --dir with exit code 2 and a clear message", async () => {
      const dir = tempDir();
      const outside = join(tempDir(), "secret.txt");
      writeFileSync(outside, "no\n");
      const run = await ocbInProcess(["run", "--demo", "--dir", dir, "--file", outside, "hi"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/outside the session directory/);
      expect(run.stderr).toContain(outside);
      expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
      expect(run.stdout).toBe("");
    });

    it("refuses an unknown --permissions preset with exit code 2", async () => {
      const run = await ocbInProcess(["run", "--demo", "--permissions", "everything", "hi"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/permissions must be one of ask, allow-all, read-only/);
      expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    });
  });
});
