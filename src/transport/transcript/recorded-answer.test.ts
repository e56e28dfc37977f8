import { describe, expect, it } from "vitest";
import { OpencodeApiError } from "../../errors.js";
import { HANG, recordedAnswer } from "./recorded-answer.js";
import type { MatchContext } from "./structural-match.js";

const context = (): MatchContext => ({ directory: "/run/here", remaps: new Map() });

describe("recordedAnswer", () => {
  it("is the recorded value, rewritten for the run's directory", () => {
    expect(recordedAnswer({ id: "ses_1", directory: "<work>" }, "session.get", context())).toEqual({
      kind: "value",
      value: { id: "ses_1", directory: "/run/here" },
    });
    expect(recordedAnswer(null, "session.abort", context())).toEqual({
      kind: "value",
      value: undefined,
    });
  });

  it("is no answer at all for a recorded hang", () => {
    expect(recordedAnswer(HANG, "session.get", context())).toEqual({ kind: "hang" });
  });

  it("is the API error the client would have read for a recorded status ≥ 400", () => {
    const answer = recordedAnswer(
      { status: 404, body: { name: "NotFoundError", data: { message: "no <work>/a" } } },
      "session.get",
      context(),
    );
    expect(answer.kind).toBe("error");
    const error = answer.kind === "error" ? answer.error : undefined;
    expect(error).toBeInstanceOf(OpencodeApiError);
    expect(error).toMatchObject({
      status: 404,
      url: "replay:session.get",
      body: { name: "NotFoundError", data: { message: "no /run/here/a" } },
    });
  });

  it("reads a recorded error without a body as an empty text", () => {
    const answer = recordedAnswer({ status: 500, body: null }, "session.get", context());
    expect(answer.kind === "error" && answer.error).toMatchObject({ status: 500, body: undefined });
  });

  it("takes a value that only looks like an error (other keys, status below 400) as a value", () => {
    for (const value of [
      { status: 200, body: "ok" },
      { status: 404, body: "x", extra: true },
      { status: "404", body: "x" },
    ]) {
      expect(recordedAnswer(value, "x", context())).toEqual({ kind: "value", value });
    }
  });
});
