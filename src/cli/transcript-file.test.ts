/** The transcript file of `ocb export` / `ocb import`: what it writes reads back; bad lines are named. */
import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import type { CanonicalEvent } from "../events/canonical.js";
import type { SessionRecord } from "../store/store.js";
import { parseTranscript, transcriptLines } from "./transcript-file.js";

const session: SessionRecord = {
  id: "ses_1",
  backend: "serve",
  directory: "/work",
  title: "hi",
  state: "released",
  createdAt: 1,
  updatedAt: 2,
};

const events = [
  {
    id: "e1",
    seq: 1,
    sessionId: "ses_1",
    at: 10,
    type: "input.admitted",
    data: { inputId: "in_1", text: "hi", delivery: "queue" },
    durable: true,
  },
  {
    id: "e2",
    seq: 2,
    sessionId: "ses_1",
    turnId: "turn_1",
    at: 11,
    type: "text.ended",
    data: { partId: "p1", text: "hello" },
    durable: true,
  },
] as CanonicalEvent[];

const file = (lines: string[]) => `${lines.join("\n")}\n`;
const good = transcriptLines({ session, events });

function refusal(text: string): string {
  try {
    parseTranscript(text);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error("the transcript was accepted");
}

describe("transcript files", () => {
  it("reads back what it writes (blank lines and CRLF aside)", () => {
    expect(parseTranscript(file(good))).toEqual({ session, events });
    expect(parseTranscript(`${good.join("\r\n")}\r\n\r\n`)).toEqual({ session, events });
  });

  it("refuses a file that is not a transcript, or one of another version", () => {
    expect(refusal("")).toMatch(/^line 1: no header/);
    expect(refusal(file(good.slice(1)))).toMatch(/^line 1: not an opencode-bridge transcript/);
    const v2 = JSON.stringify({ format: "opencode-bridge.transcript", version: 2, session });
    expect(refusal(file([v2]))).toMatch(/^line 1: transcript version 2 is not one this ocb reads/);
    const noState = JSON.stringify({
      format: "opencode-bridge.transcript",
      version: 1,
      session: { ...session, state: "asleep" },
    });
    expect(refusal(file([noState]))).toMatch(/^line 1: the header's session has state "asleep"/);
  });

  it("names the line of an event that is not JSON, of an unknown type, or not durable", () => {
    const [header = "", first = "", second = ""] = good;
    expect(refusal(file([header, first, "{oops"]))).toMatch(/^line 3: not JSON/);
    const retyped = (type: string) => second.replace('"text.ended"', JSON.stringify(type));
    expect(refusal(file([header, first, retyped("made.up")]))).toBe(
      'line 3: unknown event type "made.up"',
    );
    expect(refusal(file([header, retyped("text.delta")]))).toMatch(
      /^line 2: text\.delta is not a durable event/,
    );
    expect(refusal(file([header, "[1]"]))).toMatch(/^line 2: not an event/);
  });

  it("refuses an event of another session, and an id that repeats", () => {
    const [header = "", first = ""] = good;
    expect(refusal(file([header, first.replace('"ses_1"', '"ses_2"')]))).toMatch(
      /^line 2: the event's sessionId is "ses_2", not the header's ses_1/,
    );
    expect(refusal(file([header, first, "", first]))).toBe("line 4: event id e1 repeats line 2");
  });
});
