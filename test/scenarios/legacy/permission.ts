/**
 * A `write` tool call in a session whose rules ask before editing: the ask arrives on the
 * stream, the scenario answers it, and the tool goes on (or fails) accordingly. After an
 * `always`, a second write in the same session goes through without asking.
 */
import { join } from "node:path";
import { expect } from "vitest";
import { type ScenarioContext, scenario } from "../scenario.js";
import { typesOf, writtenFile } from "../turns.js";
import {
  assistantTexts,
  checkAnsweredAsk,
  eventsOf,
  type LegacyItem,
  promptAskAndAnswer,
  rolesOf,
  type ToolPart,
  toolPartIn,
  toolSnapshots,
  toolStatuses,
} from "./events.js";

/** The file the asked write creates, and the one the write after an `always` creates. */
const FILE = "hello.txt";
const AGAIN = "again.txt";

/**
 * An absolute path in the session directory: the prompt then holds the directory, which the
 * recording writes as `<work>` and a replay reads back as its own directory.
 */
function writeCall(directory: string, file: string, content: string): string {
  return `[[tool write ${JSON.stringify({ filePath: join(directory, file), content })}]]`;
}

type Reply = "once" | "always" | "reject";

async function runPermission(context: ScenarioContext, reply: Reply) {
  const { directory } = context;
  const {
    answered: { pending, answered },
    events,
    messages,
  } = await promptAskAndAnswer(
    context,
    {
      title: `permission ${reply}`,
      permission: [{ permission: "edit", pattern: "*", action: "ask" }],
    },
    writeCall(directory, FILE, "hello"),
    "permission.asked",
    async (client, asked) => ({
      pending: await client.permission.list(),
      answered: await client.permission.reply({ requestID: asked.properties.id, reply }),
    }),
    reply === "always" ? writeCall(directory, AGAIN, "again") : undefined,
  );
  // Only a live run has the file system the server wrote to.
  const written = [writtenFile(context, FILE), writtenFile(context, AGAIN)];
  return { directory, pending, answered, events, messages, written };
}

type Result = Awaited<ReturnType<typeof runPermission>>;

/** A write's last tool state, completed: its input, output and metadata. */
function checkWrite(last: ToolPart | undefined, filepath: string, content: string): void {
  expect(last?.state.input).toEqual({ filePath: filepath, content });
  expect(last?.state).toMatchObject({
    status: "completed",
    output: "Wrote file successfully.",
    metadata: { filepath, exists: false },
  });
}

/** The asked turn: the ask, answered `reply`, and what it did to the write. */
function checkAskedTurn(result: Result, reply: Reply): void {
  const { directory, events } = result;
  const filepath = join(directory, FILE);
  const { asked, last } = checkAnsweredAsk(
    result,
    "write",
    { type: "permission.asked", answer: "permission.replied", properties: { reply } },
    reply === "reject" ? "rejected" : { text: "tool write returned: Wrote file successfully." },
  );
  expect(asked?.properties).toMatchObject({
    permission: "edit",
    always: ["*"],
    metadata: { filepath },
  });
  expect(asked?.properties.patterns).toHaveLength(1);
  expect(asked?.properties.patterns[0]?.endsWith(`/${FILE}`)).toBe(true);
  expect(asked?.properties.metadata.diff).toEqual(expect.stringContaining("\n+hello"));
  // The ask comes once the tool part is running.
  const runningAt = events.findIndex(
    (item) => toolPartIn(item, "write")?.state.status === "running",
  );
  const askedAt = events.findIndex((item) => item.event.type === "permission.asked");
  expect([runningAt > -1, runningAt < askedAt]).toEqual([true, true]);
  if (reply === "reject") {
    // A rejection fails the tool and ends the turn: no error, no further model call.
    expect(last?.state).toMatchObject({
      status: "error",
      error: "The user rejected permission to use this specific tool call.",
    });
  } else {
    checkWrite(last, filepath, "hello");
  }
}

/** The turn after an `always`: its write goes through with no ask, and a second step replies. */
function checkTurnAfterAlways(events: LegacyItem[], result: Result): void {
  expect(eventsOf(events, "permission.asked")).toEqual([]);
  expect(eventsOf(events, "permission.replied")).toEqual([]);
  expect(eventsOf(events, "session.error")).toEqual([]);
  expect(typesOf(events).at(-1)).toBe("session.idle");
  expect(toolStatuses(events, "write")).toEqual(["pending", "running", "completed"]);
  checkWrite(toolSnapshots(events, "write").at(-1), join(result.directory, AGAIN), "again");
  const messages = result.messages.slice(3);
  expect(rolesOf(messages)).toEqual(["user", "assistant", "assistant"]);
  expect(assistantTexts(messages)).toEqual(["tool write returned: Wrote file successfully."]);
}

function permissionScenario(name: string, reply: Reply) {
  return scenario({
    name,
    surface: "legacy",
    description:
      reply === "always"
        ? 'a write tool call asks for the edit permission; the client answers "always", and a second write, prompted once the turn is over, is not asked'
        : `a write tool call asks for the edit permission; the client answers "${reply}"`,
    run: (context) => runPermission(context, reply),
    check(result) {
      const { events, messages, written } = result;
      // The asked turn ends at the session's first idle, and has at most three messages.
      const firstIdle = events.findIndex((item) => item.event.type === "session.idle") + 1;
      const asked = {
        ...result,
        events: events.slice(0, firstIdle),
        messages: messages.slice(0, 3),
      };
      checkAskedTurn(asked, reply);
      if (reply === "always") checkTurnAfterAlways(events.slice(firstIdle), result);
      else expect([events.length, messages.length]).toEqual([firstIdle, asked.messages.length]);
      if (written.some((file) => file === undefined)) return;
      expect(written).toEqual([
        reply === "reject" ? { exists: false } : { exists: true, content: "hello" },
        reply === "always" ? { exists: true, content: "again" } : { exists: false },
      ]);
    },
  });
}

export const legacyPermissionOnce = permissionScenario("legacy-permission-once", "once");
export const legacyPermissionAlways = permissionScenario("legacy-permission-always", "always");
export const legacyPermissionRejected = permissionScenario("legacy-permission-rejected", "reject");
