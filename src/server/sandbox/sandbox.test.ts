import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { Sandbox } from "./sandbox.js";

const directory = mkdtempSync(join(tmpdir(), "ocb-sandbox-unit-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const place = { directory, binary: process.execPath, ownState: [] };

it("without bubblewrap, refuses to start and says how to install it, never runs without", async () => {
  const path = process.env.PATH;
  process.env.PATH = join(directory, "no-bin");
  try {
    const started = Sandbox.prepare("workspace-write", place);
    await expect(started).rejects.toThrow(UsageError);
    await expect(started).rejects.toThrow(/apt-get install bubblewrap/);
  } finally {
    process.env.PATH = path;
  }
});

it("with the sandbox off, wraps nothing", async () => {
  expect(await Sandbox.prepare(undefined, place)).toBeUndefined();
  expect(await Sandbox.prepare("off", place)).toBeUndefined();
});

it("refuses to hide a directory the agent must reach", async () => {
  await expect(
    Sandbox.prepare({ mode: "workspace-write", deny: [tmpdir()] }, place),
  ).rejects.toThrow(/holds .*which the agent must reach/);
});
