/**
 * End to end: `ocb run --demo` as a user runs it, a real CLI process with a real server.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isCanonicalType } from "../../src/events/canonical.js";
import { trackProcess } from "../support/process-tracker.js";

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function ocb(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/ocb.ts", ...args], {
      detached: true, // its own group, so a leftover server can be swept with it
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    trackProcess(child.pid, "ocb run (cli e2e)");
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const bound = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(bound);
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // the whole group is gone already, as it should be
      }
      resolve({ code, stdout, stderr });
    });
  });
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
    const run = await ocb(["run", "--demo", '[[error 400 {"error":{"message":"nope"}}]]']);
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
    const run = await ocb([
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
    const run = await ocb(["run", "--demo", "--json", "[[reply via legacy]]"], {
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
    const run = await ocb(["run", "--demo", "hi"], { OCB_BACKEND: "telepathy" });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/OCB_BACKEND must be one of serve, serve-legacy, subprocess/);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
