import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BridgeClient, Message } from "../../src/client/index.js";
import { resolveOpencodeBinary } from "../../src/server/resolve-binary.js";
import type { OpencodeServerHandle } from "../../src/server/server-handle.js";
import { startOpencode } from "../../src/server/start-opencode.js";
import { demoModelRef, demoProviderConfig } from "../../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { gitWorktree } from "../support/git-worktree.js";
import { trackProcess } from "../support/process-tracker.js";
import { type RealSidecar, startRealSidecar } from "../support/real-sidecar.js";
import { runCommand } from "../support/run-command.js";
import { sentTurn } from "../support/sidecar-reading.js";

const scratch = mkdtempSync(join(tmpdir(), "ocb-import-attached-e2e-"));
/** The user's project: a git worktree whose one commit has `notes.txt`. */
const project = join(scratch, "project");
const PASSWORD = "users-own-server-password-0123456789";

let model: ScriptedModel;
let server: OpencodeServerHandle;
let real: RealSidecar;
/** The OpenCode session the user made with `opencode run --attach`. */
let made = "";

beforeAll(async () => {
  gitWorktree("", { "notes.txt": "first\n" }, project);

  model = await startScriptedModel();
  server = await startOpencode({
    directory: project,
    dataDir: join(scratch, "opencode-data"),
    password: PASSWORD,
    config: { ...demoProviderConfig(model.url) },
  });
  trackProcess(server.pid, "opencode serve (the user's, import attached e2e)");
  const args = ["run", "--attach", server.url, "--dir", project, "--format", "json"];
  const result = await runCommand(
    resolveOpencodeBinary(),
    [...args, "-m", demoModelRef, "--", "first question ALPHA"],
    { cwd: project, env: { ...process.env, OPENCODE_SERVER_PASSWORD: PASSWORD }, boundMs: 60_000 },
  );
  expect(result.code, result.stderr).toBe(0);
  made = (JSON.parse(result.stdout.split("\n")[0] ?? "") as { sessionID: string }).sessionID;

  real = await startRealSidecar({
    web: false,
    label: "sidecar import attached e2e",
    directory: project,
    model,
    attach: { url: server.url, password: PASSWORD },
  });
}, 120_000);

afterAll(async () => {
  await real?.close();
  await server?.close();
  await model?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("the user's own OpenCode, attached, in a git project", () => {
  it("lists and imports the user's session, which goes on; changes against the last commit; undo", async () => {
    const client: BridgeClient = real.client;
    const listed = await client.opencodeSessions();
    expect(listed.map((session) => session.id)).toEqual([made]);
    expect(listed[0]).toMatchObject({ directory: project });

    const imported = await client.importSession(made);
    expect(imported).toMatchObject({ id: made, capabilities: { importSessions: true } });
    const before = await client.conversation(made);
    expect(before.messages.map(messageText)).toEqual([
      '"first question ALPHA"',
      'echo: "first question ALPHA"',
    ]);

    // Turns of its own: they rewrite the committed file, and their model has the history.
    const write = (content: string) =>
      `[[tool write ${JSON.stringify({ path: join(project, "notes.txt"), content })}]]`;
    const first = await sentTurn(client, made, `${write("first\nsecond\n")} [[reply noted]] BRAVO`);
    expect(first.end.data).toMatchObject({ outcome: "completed", text: "noted" });
    const seen = JSON.stringify(
      model.requests
        .filter((request) => request.lastUserText.includes("BRAVO"))
        .map((request) => request.messages),
    );
    expect(seen).toContain("first question ALPHA");
    const second = await sentTurn(
      client,
      made,
      `${write("first\nsecond\nthird\n")} [[reply again]]`,
      { after: first.end.seq ?? 0 },
    );
    expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("first\nsecond\nthird\n");

    // Attached, the steps' snapshots are the user's server's: the changes are against the last
    // commit, so the second turn's counts the first's line too.
    const changes = await client.changes(made, { turnId: second.turnId });
    expect(changes.files.map(({ patch: _patch, ...file }) => file)).toEqual([
      { path: "notes.txt", status: "modified", additions: 2, deletions: 0 },
    ]);
    expect(changes.files[0]?.patch).toMatch(/^\+third$/m);

    // Undo takes the second turn's change back on disk (OpenCode's own snapshots, attached too).
    await client.revert(made, second.inputId);
    expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("first\nsecond\n");
  });
});

/** What a message of the conversation says: the user's text, or the assistant's texts. */
function messageText(message: Message): string {
  if (message.role === "user") return message.text;
  return message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
}
