/**
 * A `write` tool call in a session whose rules ask before editing: the ask arrives on the
 * stream, the scenario answers it, and the tool goes on (or fails) accordingly.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { checkAnsweredAsk, isLive, promptAskAndAnswer, toolPartIn } from "./events.js";

const FILE = "hello.txt";

/**
 * An absolute path in the session directory: the prompt then holds the directory, which the
 * recording writes as `<work>` and a replay reads back as its own directory.
 */
function writeCall(directory: string): string {
  return `[[tool write ${JSON.stringify({ filePath: join(directory, FILE), content: "hello" })}]]`;
}

function permissionScenario(name: string, reply: "once" | "reject") {
  return scenario({
    name,
    surface: "legacy",
    description: `a write tool call asks for the edit permission; the client answers "${reply}"`,
    async run(context) {
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
        writeCall(context.directory),
        "permission.asked",
        async (client, asked) => ({
          pending: await client.permission.list(),
          answered: await client.permission.reply({ requestID: asked.properties.id, reply }),
        }),
      );
      const path = join(context.directory, FILE);
      return {
        directory: context.directory,
        pending,
        answered,
        events,
        messages,
        // Only a live run has the file system the server wrote to.
        written: isLive(context)
          ? {
              exists: existsSync(path),
              content: existsSync(path) ? readFileSync(path, "utf8") : undefined,
            }
          : undefined,
      };
    },
    check(result) {
      const { directory, events, written } = result;
      const filepath = join(directory, FILE);
      const { asked, last } = checkAnsweredAsk(
        result,
        "write",
        { type: "permission.asked", answer: "permission.replied", properties: { reply } },
        reply === "once" ? { text: "tool write returned: Wrote file successfully." } : "rejected",
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
      expect(last?.state.input).toEqual({ filePath: filepath, content: "hello" });
      if (reply === "once") {
        expect(last?.state).toMatchObject({
          status: "completed",
          output: "Wrote file successfully.",
          metadata: { filepath, exists: false },
        });
        if (written) expect(written).toEqual({ exists: true, content: "hello" });
      } else {
        // A rejection fails the tool and ends the turn: no error, no further model call.
        expect(last?.state).toMatchObject({
          status: "error",
          error: "The user rejected permission to use this specific tool call.",
        });
        if (written) expect(written).toEqual({ exists: false, content: undefined });
      }
    },
  });
}

export const legacyPermissionOnce = permissionScenario("legacy-permission-once", "once");
export const legacyPermissionRejected = permissionScenario("legacy-permission-rejected", "reject");
