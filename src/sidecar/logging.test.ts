/** What reaches the sidecar's log: lines as text or JSON, secrets redacted; the store timing. */
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../store/sqlite-store.js";
import { lineLogger } from "./log-lines.js";
import { redactingLogger, redactUrl } from "./redact.js";
import { timedStore } from "./timed-store.js";

describe("redaction", () => {
  it("takes secret query parameters out of URLs", () => {
    expect(redactUrl("/v1/ws?ticket=tkt_abc&x=1")).toBe("/v1/ws?ticket=%5Bredacted%5D&x=1");
    expect(redactUrl("/v1/sessions")).toBe("/v1/sessions");
  });

  it("takes secret-named fields and the token itself out of every line", () => {
    const lines: string[] = [];
    const logger = redactingLogger(
      lineLogger("json", (line) => lines.push(line)),
      ["s3cret-token-value"],
    );
    logger.info("got s3cret-token-value", {
      headers: { authorization: "Bearer x", Password: "p" },
      nested: [{ token: "t" }],
      error: new Error("failed with s3cret-token-value"),
    });
    const entry = JSON.parse(lines[0] ?? "{}");
    expect(entry).toMatchObject({
      level: "info",
      msg: "got [redacted]",
      headers: { authorization: "[redacted]", Password: "[redacted]" },
      nested: [{ token: "[redacted]" }],
      error: { name: "Error", message: "failed with [redacted]" },
    });
  });
});

describe("lineLogger", () => {
  it("writes one line per entry, as text or JSON; debug lines are left out", () => {
    const lines: string[] = [];
    const now = () => new Date(0);
    const text = lineLogger("text", (line) => lines.push(line), now);
    text.debug("hidden");
    text.info("request", { status: 200, url: "/v1/x" });
    lineLogger("json", (line) => lines.push(line), now).warn("slow", { ms: 5 });
    expect(lines).toEqual([
      "1970-01-01T00:00:00.000Z info  request status=200 url=/v1/x\n",
      '{"time":"1970-01-01T00:00:00.000Z","level":"warn","msg":"slow","ms":5}\n',
    ]);
  });
});

describe("timedStore", () => {
  it("times each append and passes every call through", async () => {
    const store = SqliteStore.open(":memory:");
    const timings: number[] = [];
    const timed = timedStore(store, (seconds) => timings.push(seconds));
    const event = {
      id: "e1",
      sessionId: "s",
      at: 1,
      type: "turn.started" as const,
      data: {},
      durable: true as const,
    };
    expect(await timed.append("s", [event])).toHaveLength(1);
    expect(await timed.lastSeq("s")).toBe(1);
    expect(timings).toHaveLength(1);
    expect(timings[0]).toBeGreaterThanOrEqual(0);
    await timed.close();
  });
});
