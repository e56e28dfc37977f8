/** How `ocb run` prints asks and their answers: one line each. */
import { describe, expect, it } from "vitest";
import { canonical } from "../events/build.js";
import type { CanonicalEventOf, CanonicalType } from "../events/canonical.js";
import { TurnPrinter } from "./turn-printer.js";

function event<T extends CanonicalType>(type: T, data: CanonicalEventOf<T>["data"]) {
  const origin = {
    sessionId: "ses_1",
    turnId: "turn_1",
    at: 0,
    native: { backend: "serve" as const, type: "test", id: `${type}` },
  };
  return canonical(origin, 0, type, data);
}

function printed(events: ReturnType<typeof event>[]): string {
  let out = "";
  const printer = new TurnPrinter({ write: (text) => (out += text) });
  for (const e of events) printer.print(e);
  return out;
}

describe("TurnPrinter asks", () => {
  it("prints a permission ask and its answers", () => {
    expect(
      printed([
        event("text.delta", { partId: "p1", delta: "writing" }),
        event("permission.asked", {
          requestId: "per_1",
          permission: "edit",
          patterns: ["/p/a.txt"],
          diff: "+x",
        }),
        event("permission.replied", { requestId: "per_1", reply: "once" }),
        event("permission.replied", { requestId: "per_2", reply: "reject" }),
      ]),
    ).toBe(
      "writing\n" +
        "? permission edit: /p/a.txt, waiting for an answer\n" +
        "✓ permission allowed once\n" +
        "✗ permission rejected\n",
    );
  });

  it("prints a question, its answer, and a declined one", () => {
    const questions = [
      { question: "Pick one", header: "Pick", options: [{ label: "a", description: "A" }] },
      { question: "And?", header: "And", options: [] },
    ];
    expect(
      printed([
        event("question.asked", { requestId: "que_1", questions }),
        event("question.replied", { requestId: "que_1", answers: [["a"], ["b", "c"]] }),
        event("question.rejected", { requestId: "que_2" }),
      ]),
    ).toBe(
      "? question: Pick one (+1 more), waiting for an answer\n" +
        "✓ question answered: a; b, c\n" +
        "✗ question declined\n",
    );
  });
});

describe("TurnPrinter connection changes", () => {
  const lost = (attempt: number) =>
    event("connection.changed", { state: "reconnecting", since: 1, attempt, reason: "refused" });
  const back = () => event("connection.changed", { state: "connected", since: 2, attempt: 0 });

  it("prints an outage's attempts and the reconnection, each on its own line", () => {
    expect(
      printed([event("text.delta", { partId: "p1", delta: "half" }), lost(1), lost(2), back()]),
    ).toBe(
      "half\n" +
        "connection lost, reconnecting (attempt 1)…\n" +
        "connection lost, reconnecting (attempt 2)…\n" +
        "reconnected\n",
    );
  });

  it("says nothing for a connected state that ends no outage", () => {
    expect(printed([back()])).toBe("");
  });

  it("dims the lines on a colour terminal", () => {
    let out = "";
    const printer = new TurnPrinter({ write: (text) => (out += text) }, { color: true });
    printer.print(lost(1));
    printer.print(back());
    expect(out).toBe(
      "\x1b[2mconnection lost, reconnecting (attempt 1)…\x1b[0m\n\x1b[2mreconnected\x1b[0m\n",
    );
  });
});

describe("TurnPrinter text", () => {
  it("prints of a catch-up delta (a follow that resumed mid-part) only what it had not printed", () => {
    expect(
      printed([
        event("text.delta", { partId: "p1", delta: "Hel" }),
        event("text.delta", { partId: "p1", delta: "Hello", catchUp: true }),
        event("text.delta", { partId: "p1", delta: ", world" }),
        event("text.delta", { partId: "p2", delta: "Other so far", catchUp: true }),
      ]),
    ).toBe("Hello, worldOther so far");
  });
});
