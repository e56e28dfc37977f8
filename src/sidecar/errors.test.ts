/** What a thrown value becomes for the client: code and status, never a stack. */
import { describe, expect, it } from "vitest";
import { ConnectionError, OpencodeApiError, UsageError } from "../errors.js";
import { toApiError } from "./errors.js";

describe("toApiError", () => {
  it.each([
    [new UsageError('no session "x" in the store; list them'), "not_found", 404],
    [
      new UsageError('no permission ask "p" is waiting in session s (answered already)'),
      "not_found",
      404,
    ],
    [new UsageError("session s was killed; it cannot be opened"), "conflict", 409],
    [
      new UsageError('attachment "a.png" is 20 bytes, over the limit of 10 bytes; raise it'),
      "too_large",
      413,
    ],
    [new UsageError("the subprocess backend attaches local files only, got x"), "unsupported", 422],
    [new UsageError("delivery must be steer or queue"), "invalid_request", 400],
    [new ConnectionError("http://127.0.0.1:1", "connection refused"), "upstream", 502],
  ] as const)("%s → %s", (error, code, status) => {
    const { error: apiError } = toApiError(error);
    expect(apiError.code).toBe(code);
    expect(apiError.status).toBe(status);
  });

  it("answers an unexpected error as internal, without its message or stack", () => {
    const { error, unexpected } = toApiError(
      new TypeError("x is undefined at /src/secret/path.ts:12"),
    );
    expect(unexpected).toBe(true);
    expect(error.body()).toEqual({
      error: { code: "internal", message: "internal error; the sidecar's log has the details" },
    });
  });

  it("says OpenCode failed for an upstream API error", () => {
    const { error } = toApiError(
      new OpencodeApiError({
        status: 500,
        errorName: "UnknownError",
        message: "boom",
        body: {},
        url: "http://127.0.0.1:1/api/session",
      }),
    );
    expect(error.code).toBe("upstream");
    expect(error.message).toMatch(/^OpenCode failed/);
  });
});
