/**
 * End to end: a session's files over the sidecar, on a real `opencode serve` 1.18.33: a
 * directory listed, a file read, files found by three letters (for @-mentions); `..`, an
 * absolute path and a symlink leading out are refused with a 400 that says so, and a file past
 * the read bound comes back truncated.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeApiError, type BridgeClient } from "../../src/client/index.js";
import { useRealSidecar } from "../support/real-sidecar.js";

const real = useRealSidecar({ web: false, label: "sidecar files e2e" });
let client: BridgeClient;
let sessionId: string;
let outsideFile: string;
const MIB = 1024 * 1024;

beforeAll(async () => {
  const { directory } = real.current;
  client = real.current.client;
  mkdirSync(join(directory, "src", "widgets"), { recursive: true });
  writeFileSync(join(directory, "src", "widgets", "button-panel.ts"), "export const panel = 1;\n");
  writeFileSync(join(directory, "notes.md"), "# notes\n");
  writeFileSync(join(directory, "big.log"), "x".repeat(MIB + 10));
  outsideFile = join(dirname(directory), `outside-${Date.now()}.txt`);
  writeFileSync(outsideFile, "outside secret");
  symlinkSync(outsideFile, join(directory, "escape.txt"));
  sessionId = (await client.createSession()).id;
});
afterAll(() => rmSync(outsideFile, { force: true }));

async function refusal(promise: Promise<unknown>): Promise<BridgeApiError> {
  const error = await promise.then(() => undefined).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BridgeApiError);
  return error as BridgeApiError;
}

describe("a session's files", () => {
  it("lists the directory and a subdirectory, reads a file, finds one by three letters", async () => {
    const top = await client.listFiles(sessionId);
    expect(top.entries.slice(0, 1)).toEqual([{ name: "src", path: "src", type: "directory" }]);
    expect(top.entries).toContainEqual({ name: "escape.txt", path: "escape.txt", type: "symlink" });
    expect((await client.listFiles(sessionId, "src/widgets")).entries).toEqual([
      { name: "button-panel.ts", path: "src/widgets/button-panel.ts", type: "file" },
    ]);
    expect(await client.readFile(sessionId, "notes.md")).toEqual({
      path: "notes.md",
      size: 8,
      binary: false,
      content: "# notes\n",
      truncated: false,
    });
    const found = await client.findFiles(sessionId, "btn");
    expect(found.files[0]).toEqual({ path: "src/widgets/button-panel.ts", type: "file" });
  });

  it("refuses .., an absolute path outside and a symlink leading out, with a 400 saying so", async () => {
    for (const path of ["../outside.txt", outsideFile, "escape.txt"]) {
      const error = await refusal(client.readFile(sessionId, path));
      expect(error).toMatchObject({ status: 400, code: "invalid_request" });
      expect(error.message).toMatch(/outside the session directory/);
      expect(error.message).not.toContain("outside secret");
    }
    const listed = await refusal(client.listFiles(sessionId, ".."));
    expect(listed.status).toBe(400);
    expect(listed.message).toMatch(/outside the session directory/);
  });

  it("a file over 1 MiB comes back truncated to its first MiB", async () => {
    const big = await client.readFile(sessionId, "big.log");
    expect(big).toMatchObject({ size: MIB + 10, binary: false, truncated: true });
    expect(big.content).toHaveLength(MIB);
  });
});
