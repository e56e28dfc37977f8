/**
 * End to end: the user's own OpenCode sessions, made by the real `opencode run` 1.18.33 in a kept
 * data dir (laid out as `--opencode-data` lays it out), listed and imported through the sidecar
 * that is then started on that data dir, with the scripted model. OpenCode keeps such a session's
 * history only as legacy messages, and its `/api` model does not see them: the import keeps them
 * as canonical events, and the next input carries them to the model.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BridgeClient, Message } from "../../src/client/index.js";
import { prepareOpencodeEnv } from "../../src/server/prepared-env.js";
import { resolveOpencodeBinary } from "../../src/server/resolve-binary.js";
import type { SqliteStore } from "../../src/store/sqlite-store.js";
import { demoModelRef, demoProviderConfig } from "../../src/testing/demo-provider.js";
import { startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { runCommand } from "../support/run-command.js";
import { readUntil } from "../support/sidecar-reading.js";

const scratch = mkdtempSync(join(tmpdir(), "ocb-import-e2e-"));
const dataDir = join(scratch, "opencode-data");
/** The sidecar's directory, where the user ran `opencode run`. */
const project = mkdtempSync(join(scratch, "project-"));
/** A directory the sidecar does not allow. */
const elsewhere = mkdtempSync(join(scratch, "elsewhere-"));

/** The OpenCode session ids `opencode run` made: in the project, and elsewhere. */
const made = { project: "", elsewhere: "" };

// Registered before the sidecar's own beforeAll, so the sessions are there when it starts.
beforeAll(async () => {
  const model = await startScriptedModel();
  try {
    const { env } = await prepareOpencodeEnv({
      dataDir,
      password: undefined,
      config: { ...demoProviderConfig(model.url) },
    });
    const run = async (cwd: string, text: string): Promise<string> => {
      const args = ["run", "--format", "json", "-m", demoModelRef, "--", text];
      const result = await runCommand(resolveOpencodeBinary(), args, { cwd, env, boundMs: 60_000 });
      expect(result.code, result.stderr).toBe(0);
      const first = JSON.parse(result.stdout.split("\n")[0] ?? "") as { sessionID: string };
      return first.sessionID;
    };
    // One after the other: two first runs on one data dir race to create OpenCode's database
    // ("Error: Unexpected error" from one of them, seen once under load).
    made.project = await run(project, "first question ALPHA");
    made.elsewhere = await run(elsewhere, "somewhere else");
  } finally {
    await model.close();
  }
}, 90_000);

const real = useRealSidecar({
  web: false,
  label: "sidecar import e2e",
  directory: project,
  dataDir,
});
let client: BridgeClient;
let store: SqliteStore;
beforeAll(() => {
  ({ client, store } = real.current);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the user's own OpenCode sessions", () => {
  it("are listed, imported with their history, go on with it, and are imported once", async () => {
    const listed = await client.opencodeSessions();
    expect(listed.map((session) => session.id)).toEqual([made.project]);
    expect(listed[0]).toMatchObject({ directory: project, title: expect.any(String) });
    const refused = await client.opencodeSessions({ directory: elsewhere }).catch((error) => error);
    expect(refused).toMatchObject({ status: 403 });

    const imported = await importRaw(made.project);

    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({
      id: made.project,
      capabilities: { importSessions: true },
    });
    const conversation = await client.conversation(made.project);
    // `opencode run` keeps its message in quotes.
    expect(conversation.messages.map(messageText)).toEqual([
      '"first question ALPHA"',
      'echo: "first question ALPHA"',
    ]);
    expect(conversation.imported).toEqual({ upstreamId: made.project, afterMessages: 2 });
    expect(await client.opencodeSessions()).toEqual([]);

    const { turnId } = await client.send(made.project, {
      text: "[[reply imported answer]] next question CHARLIE",
      delivery: "queue",
    });
    const end = (
      await readUntil(
        client,
        made.project,
        (event) => event.type === "turn.ended" && event.turnId === turnId,
        { what: "the end of the first turn after the import" },
      )
    ).at(-1);
    expect(end?.data).toMatchObject({ outcome: "completed", text: "imported answer" });
    const requests = real.current.model.requests.filter(
      (request) => request.tools.length > 0 && request.lastUserText.includes("CHARLIE"),
    );
    expect(requests.length).toBeGreaterThan(0);
    const seen = JSON.stringify(requests.map((request) => request.messages));
    expect(seen).toContain("first question ALPHA");
    // The earlier exchange, as the primer says it (quotes escaped once by the JSON).
    expect(seen).toMatch(/User: \\"first question ALPHA\\"/);
    expect(seen).toMatch(/Assistant: echo: \\"first question ALPHA\\"/);

    // The input shows as typed, not with the earlier conversation attached to it.
    expect((await client.conversation(made.project)).messages.map(messageText)).toEqual([
      '"first question ALPHA"',
      'echo: "first question ALPHA"',
      "[[reply imported answer]] next question CHARLIE",
      "imported answer",
    ]);

    const kept = await store.read(made.project);
    const again = await importRaw(made.project);

    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: made.project });
    // The library's own answer too (the sidecar asks its store first).
    const direct = await real.current.bridge.importSession(made.project);
    expect(direct).toMatchObject({ imported: false, session: { id: made.project } });
    expect(await store.read(made.project)).toEqual(kept);
    expect((await client.listSessions()).map((session) => session.id)).toEqual([made.project]);
  });

  it("refuses a session OpenCode has not (404) and one in a directory not allowed (403)", async () => {
    expect((await importRaw("ses_not_there")).status).toBe(404);
    // Named by the body or found by OpenCode there, the directory is checked.
    expect((await importRaw(made.elsewhere, elsewhere)).status).toBe(403);
    expect((await importRaw(made.elsewhere)).status).toBe(403);
    expect(await store.session(made.elsewhere)).toBeUndefined();
  });
});

/** `POST /v1/sessions/import`, its status and body (the typed client hides 200 from 201). */
async function importRaw(
  upstreamId: string,
  directory?: string,
): Promise<{ status: number; body: unknown }> {
  const { sidecar, token } = real.current;
  const response = await fetch(`${sidecar.url}/v1/sessions/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ upstreamId, ...(directory === undefined ? {} : { directory }) }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json() };
}

/** What a message of the conversation says: the user's text, or the assistant's texts. */
function messageText(message: Message): string {
  if (message.role === "user") return message.text;
  return message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
}
