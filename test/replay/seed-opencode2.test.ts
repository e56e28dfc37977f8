/**
 * Replay (no server): seed 000, a real OpenCode 2.0.18 session, through the real client code.
 * Altered copies of it must fail with a ReplayMismatchError that names the line.
 */
import { describe, expect, it } from "vitest";
import { Opencode2Client } from "../../src/opencode-client/opencode2-client.js";
import { ReplayMismatchError } from "../../src/transport/transcript/replay-mismatch-error.js";
import { ReplayTransport } from "../../src/transport/transcript/replay-transport.js";
import { type NumberedEntry, readTranscript } from "../../src/transport/transcript/transcript.js";
import { runOpencode2Interrupt } from "../scenarios/opencode2-interrupt.js";
import { fixturePath } from "../support/fixture-files.js";

const SEED = fixturePath("opencode-2.0.18/interrupt.transcript.ndjson");
const WORK = "/home/someone/project";

function seed(): NumberedEntry[] {
  return readTranscript(SEED);
}

/** The seed with its entries changed by `edit` (lines keep their numbers unless removed). */
function altered(edit: (entries: NumberedEntry[]) => NumberedEntry[]): NumberedEntry[] {
  return edit(structuredClone(seed()));
}

function entryAt(entries: NumberedEntry[], line: number): NumberedEntry {
  const found = entries.find((entry) => entry.line === line);
  if (!found) throw new Error(`no entry at line ${line}`);
  return found;
}

describe("seed 000: OpenCode 2.0.18 interrupt, replayed", () => {
  it("replays green in the recorded order and completes", async () => {
    const replay = new ReplayTransport(SEED, { directory: WORK });
    const result = await runOpencode2Interrupt(replay, WORK);
    replay.assertComplete();

    expect(result.models.map((model) => model.id)).toEqual(["space-bunny-free", "big-pickle"]);
    expect(result.session).toMatchObject({
      id: "ses_f148c8240ffegmJ5ZhqhyYOcSH",
      location: { directory: WORK }, // "<work>" became the replay's directory
    });
    expect(result.admitted.delivery).toBe("steer");
    expect(result.interrupted).toEqual({ interrupted: true });
    const types = result.events.map((item) => item.event.type);
    expect(types[0]).toBe("server.connected");
    expect(types.at(-1)).toBe("session.execution.interrupted");
    expect(types.indexOf("session.tool.progress")).toBeLessThan(
      types.indexOf("session.tool.failed"),
    );
    expect(result.events.filter((item) => item.known).length).toBe(result.events.length - 3);
  });

  it.each([
    [
      "a wrong operation",
      (entries: NumberedEntry[]) => {
        const prompt = entryAt(entries, 11).entry;
        if (prompt.type === "expect_outbound") prompt.frame.type = "session.command";
        return entries;
      },
      11,
      /expected the call session.command, the client made session.prompt/,
    ],
    [
      "a call the transcript lacks (the client makes an extra one)",
      (entries: NumberedEntry[]) =>
        entries.filter((entry) => entry.line !== 9 && entry.line !== 10),
      11,
      /expected the call session.prompt, the client made session.instructions.entry.put/,
    ],
    [
      "a recorded call the client never makes (a missing call)",
      (entries: NumberedEntry[]) => {
        const extra: NumberedEntry = {
          line: 10.5,
          entry: {
            type: "expect_outbound",
            label: "session.get",
            frame: { type: "session.get", input: { sessionID: "ses_f148c8240ffegmJ5ZhqhyYOcSH" } },
          },
        };
        const at = entries.findIndex((entry) => entry.line === 11);
        return [...entries.slice(0, at), extra, ...entries.slice(at)];
      },
      10.5,
      /expected the call session.get, the client made session.prompt/,
    ],
    [
      "a changed input",
      (entries: NumberedEntry[]) => {
        const prompt = entryAt(entries, 11).entry;
        if (prompt.type === "expect_outbound") {
          prompt.frame.input = { sessionID: "ses_someoneelse", text: "<any>" };
        }
        return entries;
      },
      11,
      /input.sessionID differs/,
    ],
  ])("fails on %s with a ReplayMismatchError naming the line", async (_, edit, line, reason) => {
    const replay = new ReplayTransport(altered(edit), { directory: WORK, stallTimeoutMs: 2_000 });
    const error = await runOpencode2Interrupt(replay, WORK).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReplayMismatchError);
    expect((error as ReplayMismatchError).line).toBe(line);
    expect((error as Error).message).toMatch(reason);
    expect(() => replay.assertComplete()).toThrow(ReplayMismatchError);
  });

  it("reports a transcript the client stopped short of in assertComplete, naming the line", async () => {
    const replay = new ReplayTransport(SEED, { directory: WORK });
    // A client that stops after creating the session.
    const client = new Opencode2Client(replay, { directory: WORK });
    const controller = new AbortController();
    const stream = client.event.subscribe({ signal: controller.signal })[Symbol.asyncIterator]();
    const first = stream.next();
    await client.model.list({ directory: WORK });
    await first;
    await client.session.create({});
    controller.abort();
    const error = (() => {
      try {
        replay.assertComplete();
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ReplayMismatchError);
    expect((error as ReplayMismatchError).line).toBe(8);
  });
});
