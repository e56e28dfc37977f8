/**
 * End to end: slash commands, compaction, MCP servers and skills over the sidecar, against a
 * real `opencode serve` 1.18.33 and the scripted model, in a project directory that defines a
 * command (`.opencode/command/greet.md`), a skill and two MCP servers (`opencode.json`).
 *
 * A command is listed with its description and hints; running it is a normal turn with its
 * input id, queued behind a running turn like a prompt, whose prompt reached the model with the
 * template expanded. Compaction on serve is the bridge's own (1.18's `/api` has none): a
 * summary turn, `session.compacted { summary }` and a new OpenCode session whose next turn's
 * model gets the summary, not the history; on serve-legacy, OpenCode's own, which takes a second
 * sidecar: the summary's run, `session.compacted` (kept, seen by a second client), and a next
 * turn whose model gets the summary, not the history.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeApiError, BridgeClient } from "../../src/client/index.js";
import type { ScriptedModel } from "../../src/testing/scripted-model/index.js";
import { type RealSidecar, startRealSidecar, useRealSidecar } from "../support/real-sidecar.js";
import { readUntil, sentTurn, turnEvents } from "../support/sidecar-reading.js";
import { turnGate } from "../support/turn-gate.js";
import { NodeWebSocket } from "../support/ws.js";

/** A project with a command, a command running a shell command, a skill and two MCP servers. */
function project(): string {
  const directory = mkdtempSync(join(tmpdir(), "ocb-commands-e2e-"));
  const write = (path: string, text: string) => {
    mkdirSync(join(directory, path, ".."), { recursive: true });
    writeFileSync(join(directory, path), text);
  };
  write(
    ".opencode/command/greet.md",
    "---\ndescription: Greets someone by name\n---\n[[reply hello $ARGUMENTS from the command]]\n",
  );
  write(".opencode/command/shell.md", "---\ndescription: Runs git\n---\nLog: !`git log`\n");
  write(
    ".opencode/skill/tidy-imports/SKILL.md",
    "---\nname: tidy-imports\ndescription: Sorts and groups import statements\n---\nSort them.\n",
  );
  write(
    "opencode.json",
    JSON.stringify({
      mcp: {
        broken: { type: "local", command: ["/nonexistent/mcp-server"] },
        off: { type: "local", command: ["/bin/true"], enabled: false },
      },
    }),
  );
  return directory;
}

const directory = project();
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const real = useRealSidecar({ web: false, label: "sidecar commands e2e", directory });
let client: BridgeClient;
let model: ScriptedModel;
beforeAll(() => {
  ({ client, model } = real.current);
});

function secondClient(sidecar: RealSidecar): BridgeClient {
  return new BridgeClient({
    url: sidecar.sidecar.url,
    token: sidecar.token,
    WebSocket: NodeWebSocket,
  });
}

describe("what the directory offers", () => {
  it("lists the project's command with its description and hints, its skill, and its MCP servers' state", async () => {
    const commands = await client.commands();
    expect(commands).toContainEqual({
      name: "greet",
      description: "Greets someone by name",
      hints: ["$ARGUMENTS"],
      source: "command",
    });
    // OpenCode's built-ins too.
    expect(commands.map((command) => command.name)).toEqual(
      expect.arrayContaining(["init", "review", "shell"]),
    );

    const skills = await client.skills();
    expect(skills).toContainEqual({
      name: "tidy-imports",
      description: "Sorts and groups import statements",
      location: join(directory, ".opencode/skill/tidy-imports/SKILL.md"),
    });

    expect(await client.mcpStatus()).toEqual([
      {
        name: "broken",
        status: "failed",
        error: expect.stringMatching(/ENOENT.*\/nonexistent\/mcp-server/),
      },
      { name: "off", status: "disabled" },
    ]);
  });
});

describe("running a command", () => {
  it("is a normal turn with its input id, queued behind a running turn; the model gets the template expanded", async () => {
    const session = await client.createSession();
    expect(session.capabilities).toMatchObject({ commands: true, compact: true });
    const running = await client.send(session.id, { text: "[[slow 5 100]]", delivery: "queue" });

    const run = await client.runCommand(session.id, {
      name: "greet",
      arguments: "big world",
      delivery: "queue",
    });

    expect(run.turnId).not.toBe(running.turnId);
    // Sent again with its key (a retry after a lost answer): the same input, run once.
    const again = await client.runCommand(session.id, {
      name: "greet",
      arguments: "big world",
      delivery: "queue",
      idempotencyKey: run.idempotencyKey,
    });
    expect(again).toEqual(run);
    const events = await turnEvents(client, session.id, run.turnId);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(["input.admitted", "turn.started", "text.ended", "turn.ended"]),
    );
    const admitted = events.find((event) => event.type === "input.admitted");
    expect(admitted?.data).toMatchObject({
      inputId: run.inputId,
      text: "[[reply hello big world from the command]]",
      delivery: "queue",
    });
    expect(events.find((event) => event.type === "turn.started")?.data).toEqual({
      inputId: run.inputId,
    });
    expect(events.at(-1)?.data).toMatchObject({
      outcome: "completed",
      text: "hello big world from the command",
    });
    // The running turn was not disturbed: it ended, completed, before the command's started.
    const all = await client.transcript(session.id);
    const firstEnd = all.findIndex(
      (event) => event.type === "turn.ended" && event.turnId === running.turnId,
    );
    const commandStart = all.findIndex(
      (event) => event.type === "turn.started" && event.turnId === run.turnId,
    );
    expect(all[firstEnd]?.data).toMatchObject({
      outcome: "completed",
      text: "tok1 tok2 tok3 tok4 tok5",
    });
    expect(firstEnd).toBeLessThan(commandStart);
    const requests = model.requests.filter(
      (request) =>
        request.tools.length > 0 &&
        request.lastUserText === "[[reply hello big world from the command]]",
    );
    expect(requests).toHaveLength(1);
  });

  it("refuses an unknown command with a 400 naming those there are, and one running a shell command", async () => {
    const session = await client.createSession();
    const unknown = await client
      .runCommand(session.id, { name: "nope", delivery: "queue" })
      .catch((error) => error);
    expect(unknown).toBeInstanceOf(BridgeApiError);
    expect(unknown).toMatchObject({ status: 400, code: "invalid_request" });
    expect(String(unknown.message)).toMatch(
      /unknown command "nope": the commands here are .*greet/,
    );
    const shell = await client
      .runCommand(session.id, { name: "shell", delivery: "queue" })
      .catch((error) => error);
    expect(shell).toMatchObject({ status: 400 });
    expect(String(shell.message)).toMatch(/runs a shell command/);
    expect(await client.transcript(session.id)).toEqual([]);
  });
});

describe("compaction", () => {
  it("on serve, the bridge's own: a summary turn, then the next turn's model gets the summary and not the history", async () => {
    const session = await client.createSession();
    expect(session.capabilities?.compact).toBe(true);
    await sentTurn(client, session.id, "[[reply noted]] the early detail is ZEBRA-42");
    await client.compact(session.id);
    const kept = await readUntil(client, session.id, (e) => e.type === "session.rehydrated", {
      what: "the compaction's new OpenCode session",
    });
    // The scripted model's summary is its echo of the bridge's summary prompt.
    expect(kept.find((event) => event.type === "session.compacted")?.data).toEqual({
      summary: expect.stringContaining("Summarize our conversation so far"),
    });
    const conversation = await client.conversation(session.id);
    expect(conversation.compacted).toEqual({ messageCount: conversation.messages.length });
    const next = await sentTurn(client, session.id, "[[reply went on]] after the serve compaction");
    expect(next.end.data).toMatchObject({ outcome: "completed" });
    const asked = model.requests.find(
      (item) => item.tools.length > 0 && item.lastUserText.includes("after the serve compaction"),
    );
    const sent = JSON.stringify(asked?.messages);
    expect(sent).toContain("a summary of the conversation before");
    expect(sent).not.toContain("ZEBRA-42");
  });

  describe("on serve-legacy", () => {
    let legacy: RealSidecar;
    beforeAll(async () => {
      legacy = await startRealSidecar({
        backend: "serve-legacy",
        web: false,
        label: "sidecar commands e2e (serve-legacy)",
        directory,
      });
    });
    afterAll(async () => {
      await legacy?.close();
    });

    it("summarises the history: session.compacted, kept and seen by a second client; the next turn's model gets the summary", async () => {
      const { client: legacyClient, model: legacyModel } = legacy;
      const session = await legacyClient.createSession();
      expect(session.capabilities?.compact).toBe(true);
      const first = await legacyClient.send(session.id, {
        text: "[[reply the summary]] secret-first-input",
        delivery: "queue",
      });
      await turnEvents(legacyClient, session.id, first.turnId);

      await legacyClient.compact(session.id);

      const other = secondClient(legacy);
      try {
        // The summary's own run is a turn no input started; session.compacted comes in it.
        const kept = await readUntil(
          other,
          session.id,
          (event) => event.type === "turn.ended" && event.turnId !== first.turnId,
          { what: "the end of the summary's run" },
        );
        const compacted = kept.find((event) => event.type === "session.compacted");
        expect(compacted).toMatchObject({ type: "session.compacted", durable: true, data: {} });
        expect(compacted?.turnId).toBeUndefined();
        const summaryStart = kept.findLast((event) => event.type === "turn.started");
        expect(summaryStart?.data).toEqual({});
        expect(kept.at(-1)?.data).toMatchObject({ outcome: "completed", text: "the summary" });
        const conversation = await other.conversation(session.id);
        expect(conversation.compacted).toEqual({ messageCount: conversation.messages.length });
      } finally {
        other.close();
      }
      const summaryRequest = legacyModel.requests.find((request) =>
        request.lastUserText.includes("Create a new anchored summary"),
      );
      expect(summaryRequest?.lastUserText).toContain("secret-first-input");

      const next = await legacyClient.send(session.id, {
        text: "[[reply after the compaction]]",
        delivery: "queue",
      });
      const nextEvents = await turnEvents(legacyClient, session.id, next.turnId);
      expect(nextEvents.at(-1)?.data).toMatchObject({
        outcome: "completed",
        text: "after the compaction",
      });
      const [request] = legacyModel.requests.filter(
        (item) => item.tools.length > 0 && item.lastUserText === "[[reply after the compaction]]",
      );
      const history = JSON.stringify(request?.messages.slice(1));
      expect(history).not.toContain("secret-first-input");
      expect(history).toContain("the summary");
    });

    it("runs a command there too, as a normal turn", async () => {
      const { client: legacyClient } = legacy;
      const session = await legacyClient.createSession();
      const run = await legacyClient.runCommand(session.id, {
        name: "greet",
        arguments: "legacy",
        delivery: "queue",
      });
      const events = await turnEvents(legacyClient, session.id, run.turnId);
      expect(events.find((event) => event.type === "input.admitted")?.data).toMatchObject({
        inputId: run.inputId,
        text: "[[reply hello legacy from the command]]",
      });
      expect(events.at(-1)?.data).toMatchObject({
        outcome: "completed",
        text: "hello legacy from the command",
      });
    });

    it("is refused while a turn runs (409), and the turn goes on", async () => {
      const { client: legacyClient } = legacy;
      const session = await legacyClient.createSession();
      // Held open until the compact was refused: it must be asked while the turn runs.
      const gate = turnGate(directory);
      const running = await legacyClient.send(session.id, {
        text: `${gate.directive} [[slow 4 200]]`,
        delivery: "queue",
      });
      await readUntil(legacyClient, session.id, (event) => event.type === "tool.called", {
        what: "the turn running",
      });

      const busy = await legacyClient.compact(session.id).catch((error) => error);
      gate.open();

      expect(busy).toBeInstanceOf(BridgeApiError);
      expect(busy).toMatchObject({ status: 409, code: "conflict" });
      expect(String(busy.message)).toMatch(/is busy .*compact once it has ended/);
      const events = await turnEvents(legacyClient, session.id, running.turnId);
      expect(events.at(-1)?.data).toMatchObject({ outcome: "completed" });
      const kept = await legacyClient.transcript(session.id);
      expect(kept.some((event) => event.type === "session.compacted")).toBe(false);
    });
  });
});
