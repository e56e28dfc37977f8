/**
 * Recording round trip, without a server: the seed 2.0.18 transcript is replayed through the
 * real client code while a RecordingTransport records it; the recording then replays green
 * through the same code. (The end-to-end recording of a live server is in test/e2e.)
 */
import { describe, expect, it } from "vitest";
import { runOpencode2Interrupt } from "../../../test/scenarios/opencode2-interrupt.js";
import { fixturePath } from "../../../test/support/fixture-files.js";
import { OpencodeApiError, TimeoutError } from "../../errors.js";
import { RecordingTransport } from "./recording-transport.js";
import { ReplayTransport } from "./replay-transport.js";
import { formatTranscript, parseTranscript, type TranscriptEntry } from "./transcript.js";

const SEED = fixturePath("opencode-2.0.18/interrupt.transcript.ndjson");
const WORK = "/srv/work/project";

function recorderOver(inner: ReplayTransport): RecordingTransport {
  let clock = 1_000;
  return new RecordingTransport(inner, {
    directory: WORK,
    scenario: "round-trip",
    version: "2.0.18",
    now: () => (clock += 5),
  });
}

describe("RecordingTransport", () => {
  it("records a session that replays green through the same client code", async () => {
    const recorder = recorderOver(new ReplayTransport(SEED, { directory: WORK }));
    await runOpencode2Interrupt(recorder, WORK);
    const text = formatTranscript(recorder.finish());
    expect(text).not.toContain(WORK);

    const entries = parseTranscript(text);
    expect(entries[0]?.entry).toMatchObject({ type: "transcript_start", scenario: "round-trip" });
    expect(entries.at(-1)?.entry).toEqual({ type: "runtime_exit", status: "success" });
    const events = entries.flatMap(({ entry }) =>
      entry.type === "emit_inbound" && entry.frame.type === "sdk.event" ? [entry] : [],
    );
    expect(
      events.every(
        (entry) => entry.frame.type === "sdk.event" && entry.frame.stream === "event.subscribe",
      ),
    ).toBe(true);
    expect(events.every((entry) => (entry.afterMs ?? 0) >= 0)).toBe(true);

    const replay = new ReplayTransport(entries, { directory: "/elsewhere" });
    const result = await runOpencode2Interrupt(replay, "/elsewhere");
    replay.assertComplete();
    expect(result.session.location.directory).toBe("/elsewhere");
  });

  it("records an HTTP error as {status, body} and a timeout as <hang>, and rethrows both", async () => {
    const transcript: TranscriptEntry[] = [
      {
        type: "expect_outbound",
        label: "a",
        frame: { type: "session.get", input: { sessionID: "s" } },
      },
      {
        type: "emit_inbound",
        label: "a.response",
        frame: {
          type: "sdk.response",
          operation: "session.get",
          data: { status: 404, body: { name: "NotFoundError" } },
        },
      },
      {
        type: "expect_outbound",
        label: "b",
        frame: { type: "session.get", input: { sessionID: "s" } },
      },
      {
        type: "emit_inbound",
        label: "b.response",
        frame: { type: "sdk.response", operation: "session.get", data: "<hang>" },
      },
    ];
    const inner = new ReplayTransport(
      transcript.map((entry, index) => ({ line: index + 1, entry })),
      { directory: WORK },
    );
    const recorder = recorderOver(inner);
    const call = { operation: "session.get", input: { sessionID: "s" } };
    await expect(recorder.request(call)).rejects.toBeInstanceOf(OpencodeApiError);
    await expect(recorder.request(call, { timeoutMs: 20 })).rejects.toBeInstanceOf(TimeoutError);
    const answers = recorder.entries.flatMap((entry) =>
      entry.type === "emit_inbound" && entry.frame.type === "sdk.response"
        ? [entry.frame.data]
        : [],
    );
    expect(answers).toEqual([{ status: 404, body: { name: "NotFoundError" } }, "<hang>"]);
  });
});
