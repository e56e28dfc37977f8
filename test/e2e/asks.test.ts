/**
 * End to end: permission asks and questions on both serve surfaces, against the real 1.18.33
 * binary and the scripted model, through the runtime (`Session.replyPermission`,
 * `answerQuestion`, `rejectQuestion`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError } from "../../src/errors.js";
import type { CanonicalEvent, CanonicalEventOf } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { Session } from "../../src/runtime/session/session.js";
import type { Turn } from "../../src/runtime/session/turn.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { within } from "../support/within.js";

const QUESTION =
  '[[tool question {"questions":[{"question":"Pick one","header":"Pick","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]}]}]]';

/**
 * Bound on each wait below: a safety net well inside the test's own timeout, so that a hang
 * fails with what was awaited (never a speed check; the turns take seconds).
 */
const WAIT_MS = 45_000;

/** Queues `text` (bounded); the turn it starts. */
function queue(session: Session, text: string): Promise<Turn> {
  return within(session.send(text, { delivery: "queue" }), `sending ${text.slice(0, 40)}`, WAIT_MS);
}

/** The turn's result (bounded). */
function ended(turn: Turn) {
  return within(turn.done(), `the end of turn ${turn.id}`, WAIT_MS);
}

/** Reads the turn's events until `stop` holds (bounded); what was read, and whether it held. */
async function readTurn(
  turn: Turn,
  what: string,
  stop: (event: CanonicalEvent) => boolean,
  session: Session,
): Promise<CanonicalEvent[]> {
  const read: CanonicalEvent[] = [];
  try {
    for await (const event of turn.events({ signal: AbortSignal.timeout(WAIT_MS) })) {
      read.push(event);
      if (stop(event)) return read;
    }
  } catch (error) {
    if (!(error instanceof AbortError)) throw error;
    // Say where things stand: an ask the session has but this turn does not is a lost ask.
    const pending = session.pendingAsks.map((ask) => `${ask.requestId} (turn ${ask.turnId})`);
    throw new Error(
      `waited ${WAIT_MS} ms for ${what} on turn ${turn.id}; it had ${types(read).join(", ")}; ` +
        `the session's pending asks: ${pending.join(", ") || "none"}`,
    );
  }
  return read;
}

/** The turn's next ask, read from its events (bounded). */
async function nextAsk<T extends "permission.asked" | "question.asked">(
  session: Session,
  turn: Turn,
  type: T,
): Promise<CanonicalEventOf<T>> {
  const read = await readTurn(turn, `a ${type}`, (event) => event.type === type, session);
  const ask = read.at(-1);
  if (ask?.type !== type) throw new Error(`the turn ended without a ${type}`);
  return ask as CanonicalEventOf<T>;
}

/** Every event of the turn up to its end (bounded). */
function collectTurn(session: Session, turn: Turn): Promise<CanonicalEvent[]> {
  return readTurn(turn, "the turn's end", (event) => event.type === "turn.ended", session);
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
      bridge = await Bridge.start({
        directory,
        modelServer: demoModelServer,
        backend,
        permissions: "ask",
      });
      trackProcess(bridge.server.pid, `opencode serve (asks, ${backend})`);
    });
    afterAll(async () => {
      await bridge?.close();
      rmSync(directory, { recursive: true, force: true });
    });

    const write = (session: Session, file: string, then = "wrote") =>
      queue(
        session,
        `[[tool write ${writeArgs(backend, join(directory, file), "hello\n")}]] [[then ${then}]]`,
      );

    it("asks for a write with its diff; answered once, the file is written", async () => {
      const session = await bridge.createSession();
      const turn = await write(session, "once.txt");
      const ask = await nextAsk(session, turn, "permission.asked");
      expect(ask.data).toMatchObject({ permission: "edit", callId: expect.any(String) });
      expect(ask.data.diff).toContain("+hello");
      expect(ask.data.files).toEqual([join(directory, "once.txt")]);
      expect(turn.waitingFor.map((event) => event.type)).toEqual(["permission.asked"]);
      expect(session.pendingAsks.map((pending) => pending.requestId)).toEqual([ask.data.requestId]);
      await session.replyPermission(ask.data.requestId, "once");
      const events = await collectTurn(session, turn);
      expect(types(events)).toContain("permission.replied");
      expect(await ended(turn)).toMatchObject({ outcome: "completed", text: "wrote" });
      expect(readFileSync(join(directory, "once.txt"), "utf8")).toBe("hello\n");
      expect(session.pendingAsks).toEqual([]);
      await session.close();
    });

    it("an edit through a symlink that leaves the directory: no ask carries the outside file", async () => {
      // On serve-legacy OpenCode asks with a diff it computed itself, following the link: the
      // outside file's content went into the ask, the store and the chat (issue 28, finding
      // 3). On /api it refuses the write outright.
      const outside = mkdtempSync(join(tmpdir(), "ocb-asks-outside-"));
      try {
        writeFileSync(join(outside, "secret.txt"), "OUTSIDE-SECRET-4f1a\n");
        symlinkSync(join(outside, "secret.txt"), join(directory, "secret-link.txt"));
        const session = await bridge.createSession();
        const turn = await write(session, "secret-link.txt", "told no");
        const asks: CanonicalEventOf<"permission.asked">[] = [];
        for await (const event of turn.events()) {
          if (event.type !== "permission.asked") continue;
          asks.push(event);
          await session.replyPermission(event.data.requestId, "reject");
        }
        if (backend === "serve-legacy") {
          expect(asks).toHaveLength(1);
          expect(asks[0]?.data.diff).toBeUndefined();
          expect(asks[0]?.data.diffOmitted).toBe("outside-directory");
        } else {
          expect(asks).toEqual([]);
        }
        expect(JSON.stringify(await session.transcript())).not.toContain("OUTSIDE-SECRET-4f1a");
        await session.close();
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it("a rejected write fails the tool and leaves no file; the turn goes on", async () => {
      const session = await bridge.createSession();
      const turn = await write(session, "rejected.txt", "told no");
      const ask = await nextAsk(session, turn, "permission.asked");
      await session.replyPermission(ask.data.requestId, "reject", { message: "not now" });
      const events = await collectTurn(session, turn);
      const failed = events.find((event) => event.type === "tool.failed");
      expect(failed?.data).toMatchObject({
        callId: ask.data.callId,
        error: { kind: "permission-rejected" },
      });
      expect(existsSync(join(directory, "rejected.txt"))).toBe(false);
      // The model is told ("not now") and goes on.
      expect(await ended(turn)).toMatchObject({ outcome: "completed", text: "told no" });
      const next = await queue(session, "[[reply still here]]");
      expect(await ended(next)).toMatchObject({ outcome: "completed", text: "still here" });
      await session.close();
    });

    it("`always` means the next write of the session is not asked", async () => {
      const session = await bridge.createSession();
      const first = await write(session, "always-1.txt");
      const ask = await nextAsk(session, first, "permission.asked");
      await session.replyPermission(ask.data.requestId, "always");
      expect(await ended(first)).toMatchObject({ outcome: "completed" });
      const second = await write(session, "always-2.txt", "again");
      const events = await collectTurn(session, second);
      expect(types(events)).not.toContain("permission.asked");
      expect(await ended(second)).toMatchObject({ outcome: "completed", text: "again" });
      expect(existsSync(join(directory, "always-2.txt"))).toBe(true);
      await session.close();
    });

    it("a question is answered, and another one rejected", async () => {
      const session = await bridge.createSession();
      const answered = await queue(session, `${QUESTION} [[then answered]]`);
      const question = await nextAsk(session, answered, "question.asked");
      expect(question.data.questions).toHaveLength(1);
      await session.answerQuestion(question.data.requestId, [["a"]]);
      const events = await collectTurn(session, answered);
      expect(types(events)).toContain("question.replied");
      expect(events.find((event) => event.type === "tool.succeeded")?.data).toMatchObject({
        output: expect.stringContaining("a"),
      });
      expect(await ended(answered)).toMatchObject({ outcome: "completed", text: "answered" });

      const rejected = await queue(session, `${QUESTION} [[then never]]`);
      const second = await nextAsk(session, rejected, "question.asked");
      await session.rejectQuestion(second.data.requestId);
      const rejectedEvents = await collectTurn(session, rejected);
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
