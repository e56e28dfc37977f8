import { describe, expect, it } from "vitest";
import { normalizeTranscript } from "./normalize.js";
import type { TranscriptEntry } from "./transcript.js";

const call = (type: string, input: unknown): TranscriptEntry => ({
  type: "expect_outbound",
  label: type,
  frame: { type, input },
});
const answer = (operation: string, data: unknown, afterMs?: number): TranscriptEntry => ({
  type: "emit_inbound",
  label: `${operation}.response`,
  frame: { type: "sdk.response", operation, data },
  ...(afterMs === undefined ? {} : { afterMs }),
});
const event = (stream: string, value: unknown): TranscriptEntry => ({
  type: "emit_inbound",
  label: "event",
  frame: { type: "sdk.event", event: value, stream },
});

describe("normalizeTranscript", () => {
  it("numbers ids in the order of the view, whatever order they arrived in", () => {
    const created = answer("session.create", { id: "ses_AAA" }, 12);
    const prompted = event("event.subscribe", { type: "x", sessionID: "ses_AAA", id: "msg_Q" });
    const first = normalizeTranscript([call("session.create", {}), created, prompted]);
    const second = normalizeTranscript([call("session.create", {}), prompted, created]);
    expect(first).toEqual(second);
    expect(first.calls[0]?.answer).toEqual({ id: "<ses:1>" });
    expect(first.streams["event.subscribe"]).toEqual([
      { type: "x", sessionID: "<ses:1>", id: "<msg:1>" },
    ]);
  });

  it("zeroes times, and hides dates, local ports, slugs and hashes", () => {
    const view = normalizeTranscript([
      call("x", {}),
      answer("x", {
        time: { created: 17, anything: 3 },
        timestamp: 5,
        title: "New session - 2026-11-29T07:04:48.107Z",
        url: "http://127.0.0.1:41234/v1",
        slug: "jolly-pixel",
        snapshot: "99482b54df6361365fa0ed7363ccf07edaa7fc93",
        count: 7,
      }),
    ]);
    expect(view.calls[0]?.answer).toEqual({
      time: { created: 0, anything: 0 },
      timestamp: 0,
      title: "New session - <date>",
      url: "http://127.0.0.1:<port>/v1",
      slug: "<slug>",
      snapshot: "<hash>",
      count: 7,
    });
  });

  it("drops heartbeats and keeps streams apart", () => {
    const view = normalizeTranscript([
      event("a", { type: "server.heartbeat" }),
      event("a", { type: "one" }),
      event("b", { type: "two" }),
    ]);
    expect(view.streams).toEqual({ a: [{ type: "one" }], b: [{ type: "two" }] });
  });

  it("still tells different behaviour apart", () => {
    const a = normalizeTranscript([event("s", { type: "text", text: "hello" })]);
    const b = normalizeTranscript([event("s", { type: "text", text: "goodbye" })]);
    expect(a).not.toEqual(b);
  });
});

describe("normalizeTranscript on OpenCode 1.18's timing noise", () => {
  it("drops catalog-loading noise and puts the summariser's events in their own lane", () => {
    const loop = (type: string) =>
      event("event.subscribe", { type, properties: { sessionID: "ses_A" } });
    const summary = event("event.subscribe", {
      type: "session.diff",
      properties: { sessionID: "ses_A" },
    });
    const noise = event("event.subscribe", { type: "plugin.added", properties: {} });
    const a = normalizeTranscript([loop("session.status"), summary, noise, loop("session.idle")]);
    const b = normalizeTranscript([noise, loop("session.status"), loop("session.idle"), summary]);
    expect(a).toEqual(b);
    expect(Object.keys(a.streams).sort()).toEqual(["event.subscribe", "event.subscribe#summary"]);
  });

  it("hides HTTP dates echoed in provider errors", () => {
    const view = normalizeTranscript([
      event("s", { type: "session.error", date: "Sun, 29 Nov 2026 08:25:50 GMT" }),
    ]);
    expect(view.streams.s).toEqual([{ type: "session.error", date: "<date>" }]);
  });
});

describe("normalizeTranscript on OpenCode 1.18's step figures", () => {
  const assistant = (extra: Record<string, unknown>) =>
    event("event", {
      type: "message.updated",
      properties: {
        sessionID: "ses_A",
        info: { id: "msg_B", role: "assistant", time: { created: 1 }, ...extra },
      },
    });
  const session = (tokens: number) =>
    event("event", {
      type: "session.updated",
      properties: {
        sessionID: "ses_A",
        info: { id: "ses_A", title: "t", tokens: { input: tokens } },
      },
    });

  it("ignores whether an update sent before the step ended already shows its results", () => {
    // Seen in a live re-recording: the same event carried the finished step, and the
    // session's totals counted that step twice.
    const early = normalizeTranscript([assistant({ tokens: { input: 0 } }), session(4893)]);
    const late = normalizeTranscript([
      assistant({
        finish: "tool-calls",
        tokens: { input: 2485 },
        cost: 0,
        time: { created: 1, completed: 2 },
      }),
      session(7378),
    ]);
    expect(late).toEqual(early);
  });

  it("keeps what else the updates say, and the answers' figures", () => {
    const base = normalizeTranscript([assistant({ tokens: { input: 0 } })]);
    const otherAgent = normalizeTranscript([assistant({ agent: "plan", tokens: { input: 0 } })]);
    expect(otherAgent).not.toEqual(base);
    const answered = (input: number) =>
      normalizeTranscript([call("session.get", {}), answer("session.get", { tokens: { input } })]);
    expect(answered(1)).not.toEqual(answered(2));
  });
});
