/** The NDJSON transcript format: parsing with line numbers, and the round trip. */
import { describe, expect, it } from "vitest";
import {
  formatTranscript,
  parseTranscript,
  type TranscriptEntry,
  TranscriptFormatError,
} from "./transcript.js";

const START = {
  type: "transcript_start",
  provider: "opencode",
  protocol: "opencode2-http.sse",
  version: "2.0.18",
  scenario: "unit",
  metadata: { note: "kept" },
};
const CALL = {
  type: "expect_outbound",
  label: "session.get",
  frame: { type: "session.get", input: { sessionID: "ses_1" }, directory: "<work>" },
};
const RESPONSE = {
  type: "emit_inbound",
  label: "session.get.response",
  frame: { type: "sdk.response", operation: "session.get", data: { data: { id: "ses_1" } } },
  afterMs: 12,
};
const EVENT = {
  type: "emit_inbound",
  label: "server.connected",
  frame: { type: "sdk.event", event: { type: "server.connected" }, stream: "event.subscribe" },
};
const EXIT = { type: "runtime_exit", status: "success" };

const lines = (...values: unknown[]): string =>
  values.map((value) => (typeof value === "string" ? value : JSON.stringify(value))).join("\n");

function formatErrorOf(text: string): TranscriptFormatError {
  try {
    parseTranscript(text);
  } catch (error) {
    expect(error).toBeInstanceOf(TranscriptFormatError);
    return error as TranscriptFormatError;
  }
  throw new Error("parseTranscript accepted the text");
}

describe("parseTranscript", () => {
  it("parses every entry type, numbering lines from 1 and counting blank ones", () => {
    const parsed = parseTranscript(`${lines(START, "", CALL, "   ", RESPONSE, EVENT, EXIT)}\n`);
    expect(parsed.map(({ line }) => line)).toEqual([1, 3, 5, 6, 7]);
    expect(parsed.map(({ entry }) => entry)).toEqual([START, CALL, RESPONSE, EVENT, EXIT]);
  });

  it("accepts CRLF line ends", () => {
    const parsed = parseTranscript(`${lines(START, CALL).replace("\n", "\r\n")}\r\n`);
    expect(parsed.map(({ line, entry }) => [line, entry.type])).toEqual([
      [1, "transcript_start"],
      [2, "expect_outbound"],
    ]);
  });

  it("keeps fields it does not know (a newer recorder may add some)", () => {
    const [parsed] = parseTranscript(lines({ ...CALL, recordedAt: 5 }));
    expect(parsed?.entry).toMatchObject({ recordedAt: 5 });
  });

  it("rejects an unknown entry type, naming its line (blank lines counted)", () => {
    const error = formatErrorOf(lines(START, "", CALL, { type: "expect_inbound", label: "x" }));
    expect(error.line).toBe(4);
    expect(error.message).toMatch(/^transcript line 4: unknown entry type "expect_inbound"/);
  });

  it("rejects a line with no type, naming the line", () => {
    const error = formatErrorOf(lines(START, "[1, 2]"));
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/unknown entry type/);
  });

  it("rejects a line that is not JSON, naming the line and keeping the cause", () => {
    const error = formatErrorOf(lines(START, "", "", '{"type": "runtime_exit",'));
    expect(error.line).toBe(4);
    expect(error.message).toMatch(/^transcript line 4: not JSON/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it.each([
    ["an expect_outbound without label", { type: "expect_outbound", frame: CALL.frame }, /label/],
    [
      "a response without data",
      { ...RESPONSE, frame: { ...RESPONSE.frame, data: undefined } },
      /data/,
    ],
    ["an event without event", { ...EVENT, frame: { type: "sdk.event" } }, /event/],
    ["an unknown frame type", { ...EVENT, frame: { type: "sdk.other" } }, /frame/],
    ["a negative afterMs", { ...RESPONSE, afterMs: -1 }, /afterMs/],
    ["an unknown exit status", { type: "runtime_exit", status: "done" }, /status/],
  ])("rejects %s, naming the line and the field", (_, bad, field) => {
    const error = formatErrorOf(lines(START, CALL, bad));
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^transcript line 3: invalid /);
    expect(error.message).toMatch(field);
  });

  it("gives an empty list for an empty text", () => {
    expect(parseTranscript("")).toEqual([]);
    expect(parseTranscript("\n\n")).toEqual([]);
  });
});

describe("formatTranscript", () => {
  it("round-trips with parseTranscript", () => {
    const entries = [START, CALL, RESPONSE, EVENT, EXIT] as TranscriptEntry[];
    const text = formatTranscript(entries);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.split("\n")).toHaveLength(entries.length + 1);
    const parsed = parseTranscript(text);
    expect(parsed.map(({ entry }) => entry)).toEqual(entries);
    expect(parsed.map(({ line }) => line)).toEqual([1, 2, 3, 4, 5]);
    expect(formatTranscript(parsed.map(({ entry }) => entry))).toBe(text);
  });

  it("formats no entries as an empty text", () => {
    expect(formatTranscript([])).toBe("");
  });
});
