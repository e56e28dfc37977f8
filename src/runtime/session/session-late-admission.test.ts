/**
 * An input with attachments whose admission comes after `send` stopped waiting for it (a
 * loaded server or stream: seen on serve-legacy under a loaded full run, where the transcript's
 * `input.admitted` then lacked the files). The admission, when it comes, still names them.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { nativeFedApiSession } from "../../../test/support/native-fed-backend.js";

const directory = mkdtempSync(join(tmpdir(), "ocb-late-admission-"));
writeFileSync(join(directory, "notes.txt"), "planted notes\n");

afterEach(() => {
  vi.useRealTimers();
});

describe("Session: an admission that comes late", () => {
  it("names the input's attachments, as an admission in time does", async () => {
    // Timers only: reading the attachment is real I/O, which a faked setImmediate would stall.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { session, backend } = nativeFedApiSession("ses_late_admission", { directory });
    try {
      backend.holdNextAdmission = true;
      const sending = session.send("read the notes", { delivery: "queue", files: ["notes.txt"] });
      // The attachment is read (real I/O) before the prompt goes out; the clock stands still.
      while (backend.holdNextAdmission) await new Promise((resolve) => setImmediate(resolve));
      // No admission within the bound: the send guesses its turn and returns.
      await vi.advanceTimersByTimeAsync(6_000);
      const turn = await sending;
      backend.admitHeld();
      backend.prompted("msg_1", "queue");
      backend.step("step_1");
      await session.settled();
      expect(await turn.done()).toMatchObject({ outcome: "completed" });
      const admitted = (await session.transcript()).filter(
        (event) => event.type === "input.admitted",
      );
      expect(admitted.map((event) => event.data)).toEqual([
        expect.objectContaining({ text: "read the notes", files: [join(directory, "notes.txt")] }),
      ]);
    } finally {
      await session.close();
    }
  });

  it("names them when the admission comes in time (the usual case)", async () => {
    const { session, backend } = nativeFedApiSession("ses_admission_in_time", { directory });
    try {
      const turn = await session.send("read the notes", {
        delivery: "queue",
        files: ["notes.txt"],
      });
      backend.prompted("msg_1", "queue");
      backend.step("step_1");
      await session.settled();
      expect(await turn.done()).toMatchObject({ outcome: "completed" });
      const admitted = (await session.transcript()).find(
        (event) => event.type === "input.admitted",
      );
      expect(admitted?.data).toMatchObject({ files: [join(directory, "notes.txt")] });
    } finally {
      await session.close();
    }
  });
});

process.on("exit", () => rmSync(directory, { recursive: true, force: true }));
