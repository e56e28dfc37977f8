/**
 * A `write` tool call in a session whose rules ask before editing: the ask arrives on the
 * stream, the scenario answers it, and the tool goes on (or fails) accordingly.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { scenario } from "../scenario.js";
import { clientFor, isLegacy, openLegacyEvents, typesOf } from "../turns.js";
import {
  assistantTexts,
  eventsOf,
  isLive,
  promptText,
  rolesOf,
  toolPartIn,
  toolSnapshots,
  toolStatuses,
} from "./events.js";

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
      const client = clientFor(context);
      const stream = await openLegacyEvents(client);
      try {
        const session = await client.session.create({
          title: `permission ${reply}`,
          permission: [{ permission: "edit", pattern: "*", action: "ask" }],
        });
        await promptText(client, session.id, writeCall(context.directory));
        const [asked] = eventsOf(
          await stream.until((item) => isLegacy(item, "permission.asked", session.id)),
          "permission.asked",
        );
        if (asked === undefined) throw new Error("permission.asked did not parse");
        const pending = await client.permission.list();
        const answered = await client.permission.reply({
          requestID: asked.properties.id,
          reply,
        });
        await stream.idle(session.id);
        const events = stream.of(session.id);
        await stream.close();
        const messages = await client.session.messages({ sessionID: session.id });
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
      } finally {
        await stream.close();
      }
    },
    check({ directory, pending, answered, events, messages, written }) {
      const [asked] = eventsOf(events, "permission.asked");
      const filepath = join(directory, FILE);
      expect(asked?.properties).toMatchObject({
        permission: "edit",
        always: ["*"],
        metadata: { filepath },
      });
      expect(asked?.properties.patterns).toHaveLength(1);
      expect(asked?.properties.patterns[0]?.endsWith(`/${FILE}`)).toBe(true);
      expect(asked?.properties.metadata.diff).toEqual(expect.stringContaining("\n+hello"));
      // The ask comes once the tool part is running, and names that tool call.
      const running = toolSnapshots(events, "write").find(
        (part) => part.state.status === "running",
      );
      expect(asked?.properties.tool).toEqual({
        messageID: running?.messageID,
        callID: running?.callID,
      });
      const at = (found: (item: (typeof events)[number]) => boolean) => events.findIndex(found);
      const runningAt = at((item) => toolPartIn(item, "write")?.state.status === "running");
      const askedAt = at((item) => item.event.type === "permission.asked");
      const repliedAt = at((item) => item.event.type === "permission.replied");
      const settledAt = at((item) => {
        const status = toolPartIn(item, "write")?.state.status;
        return status === "completed" || status === "error";
      });
      expect(runningAt).toBeGreaterThan(-1);
      expect([runningAt < askedAt, askedAt < repliedAt, repliedAt < settledAt]).toEqual([
        true,
        true,
        true,
      ]);
      expect(pending.map((request) => request.id)).toEqual([asked?.properties.id]);
      expect(answered).toBe(true);
      expect(eventsOf(events, "permission.replied").map((event) => event.properties)).toEqual([
        { sessionID: asked?.properties.sessionID, requestID: asked?.properties.id, reply },
      ]);
      expect(typesOf(events).at(-1)).toBe("session.idle");
      expect(eventsOf(events, "session.error")).toEqual([]);
      const last = toolSnapshots(events, "write").at(-1);
      expect(last?.state.input).toEqual({ filePath: filepath, content: "hello" });
      if (reply === "once") {
        expect(toolStatuses(events, "write")).toEqual(["pending", "running", "completed"]);
        expect(last?.state).toMatchObject({
          status: "completed",
          output: "Wrote file successfully.",
          metadata: { filepath, exists: false },
        });
        expect(rolesOf(messages)).toEqual(["user", "assistant", "assistant"]);
        expect(assistantTexts(messages)).toEqual(["tool write returned: Wrote file successfully."]);
        if (written) expect(written).toEqual({ exists: true, content: "hello" });
      } else {
        // A rejection fails the tool and ends the turn: no error, no further model call.
        expect(toolStatuses(events, "write")).toEqual(["pending", "running", "error"]);
        expect(last?.state).toMatchObject({
          status: "error",
          error: "The user rejected permission to use this specific tool call.",
        });
        expect(rolesOf(messages)).toEqual(["user", "assistant"]);
        const assistant = messages[1]?.info;
        expect(assistant?.role === "assistant" && assistant.finish).toBe("tool-calls");
        expect(assistant?.role === "assistant" && assistant.error).toBeUndefined();
        expect(assistantTexts(messages)).toEqual([]);
        if (written) expect(written).toEqual({ exists: false, content: undefined });
      }
    },
  });
}

export const legacyPermissionOnce = permissionScenario("legacy-permission-once", "once");
export const legacyPermissionRejected = permissionScenario("legacy-permission-rejected", "reject");
