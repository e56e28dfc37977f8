/**
 * End to end: permission asks and questions on both serve surfaces, against the real 1.18.33
 * binary and the scripted model, through the runtime (`Session.replyPermission`,
 * `answerQuestion`, `rejectQuestion`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanonicalEvent, CanonicalEventOf } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge.js";
import type { Session } from "../../src/runtime/session.js";
import type { Turn } from "../../src/runtime/turn.js";
import { trackProcess } from "../support/process-tracker.js";
import { collectTurn } from "../support/turn-events.js";

const QUESTION =
  '[[tool question {"questions":[{"question":"Pick one","header":"Pick","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]}]}]]';

/** The turn's next ask, read from its events. */
async function nextAsk<T extends "permission.asked" | "question.asked">(
  turn: Turn,
  type: T,
): Promise<CanonicalEventOf<T>> {
  for await (const event of turn.events()) {
    if (event.type === type) return event as CanonicalEventOf<T>;
  }
  throw new Error(`the turn ended without a ${type}`);
}

const writeArgs = (backend: string, file: string, content: string) =>
  backend === "serve"
    ? JSON.stringify({ path: file, content })
    : JSON.stringify({ filePath: file, content });

for (const backend of ["serve", "serve-legacy"] as const) {
  describe(`asks on the ${backend} backend`, () => {
    let bridge: Bridge;
    let directory: string;
    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), `ocb-asks-${backend}-`));
      bridge = await Bridge.start({ directory, demo: true, backend, permissions: "ask" });
      trackProcess(bridge.server.pid, `opencode serve (asks, ${backend})`);
    });
    afterAll(async () => {
      await bridge?.close();
      rmSync(directory, { recursive: true, force: true });
    });

    const write = (session: Session, file: string, then = "wrote") =>
      session.send(
        `[[tool write ${writeArgs(backend, join(directory, file), "hello\n")}]] [[then ${then}]]`,
        { delivery: "queue" },
      );

    it("asks for a write with its diff; answered once, the file is written", async () => {
      const session = await bridge.createSession();
      const turn = await write(session, "once.txt");
      const ask = await nextAsk(turn, "permission.asked");
      expect(ask.data).toMatchObject({ permission: "edit", callId: expect.any(String) });
      expect(ask.data.diff).toContain("+hello");
      expect(ask.data.files).toEqual([join(directory, "once.txt")]);
      expect(turn.waitingFor.map((event) => event.type)).toEqual(["permission.asked"]);
      expect(session.pendingAsks.map((pending) => pending.requestId)).toEqual([ask.data.requestId]);
      await session.replyPermission(ask.data.requestId, "once");
      const events = await collectTurn(turn);
      expect(types(events)).toContain("permission.replied");
      expect(await turn.done()).toMatchObject({ outcome: "completed", text: "wrote" });
      expect(readFileSync(join(directory, "once.txt"), "utf8")).toBe("hello\n");
      expect(session.pendingAsks).toEqual([]);
      await session.close();
    });

    it("a rejected write fails the tool and leaves no file; the turn goes on", async () => {
      const session = await bridge.createSession();
      const turn = await write(session, "rejected.txt", "told no");
      const ask = await nextAsk(turn, "permission.asked");
      await session.replyPermission(ask.data.requestId, "reject", { message: "not now" });
      const events = await collectTurn(turn);
      const failed = events.find((event) => event.type === "tool.failed");
      expect(failed?.data).toMatchObject({
        callId: ask.data.callId,
        error: { kind: "permission-rejected" },
      });
      expect(existsSync(join(directory, "rejected.txt"))).toBe(false);
      // The model is told ("not now") and goes on.
      expect(await turn.done()).toMatchObject({ outcome: "completed", text: "told no" });
      const next = await session.send("[[reply still here]]", { delivery: "queue" });
      expect(await next.done()).toMatchObject({ outcome: "completed", text: "still here" });
      await session.close();
    });

    it("`always` means the next write of the session is not asked", async () => {
      const session = await bridge.createSession();
      const first = await write(session, "always-1.txt");
      const ask = await nextAsk(first, "permission.asked");
      await session.replyPermission(ask.data.requestId, "always");
      expect(await first.done()).toMatchObject({ outcome: "completed" });
      const second = await write(session, "always-2.txt", "again");
      const events = await collectTurn(second);
      expect(types(events)).not.toContain("permission.asked");
      expect(await second.done()).toMatchObject({ outcome: "completed", text: "again" });
      expect(existsSync(join(directory, "always-2.txt"))).toBe(true);
      await session.close();
    });

    it("a question is answered, and another one rejected", async () => {
      const session = await bridge.createSession();
      const answered = await session.send(`${QUESTION} [[then answered]]`, { delivery: "queue" });
      const question = await nextAsk(answered, "question.asked");
      expect(question.data.questions).toHaveLength(1);
      await session.answerQuestion(question.data.requestId, [["a"]]);
      const events = await collectTurn(answered);
      expect(types(events)).toContain("question.replied");
      expect(events.find((event) => event.type === "tool.succeeded")?.data).toMatchObject({
        output: expect.stringContaining("a"),
      });
      expect(await answered.done()).toMatchObject({ outcome: "completed", text: "answered" });

      const rejected = await session.send(`${QUESTION} [[then never]]`, { delivery: "queue" });
      const second = await nextAsk(rejected, "question.asked");
      await session.rejectQuestion(second.data.requestId);
      const rejectedEvents = await collectTurn(rejected);
      expect(types(rejectedEvents)).toContain("question.rejected");
      expect(rejectedEvents.find((event) => event.type === "tool.failed")?.data).toMatchObject({
        error: { kind: "question-rejected" },
      });
      await expect(session.answerQuestion(second.data.requestId, [["a"]])).rejects.toThrow(
        /no question ask .* is waiting/,
      );
      await session.close();
    });
  });
}

function types(events: CanonicalEvent[]): string[] {
  return events.map((event) => event.type);
}
