/**
 * Malformed requests to the REST routes (`app.inject()`, sessions on the in-process backend):
 * each is answered with its documented 4xx and a message, never a stack, and the session takes
 * the next input as if nothing happened.
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AUTH, JSON_HEADERS, sessionHarnesses } from "../../test/support/sidecar-harness.js";

const withSession = sessionHarnesses();

/** One part of a multipart body with the boundary `x`; a file part when `file` names it. */
function part(name: string, value: string, file?: string): string {
  const disposition = `form-data; name="${name}"${file === undefined ? "" : `; filename="${file}"`}`;
  const type = file === undefined ? "" : "\r\nContent-Type: text/plain";
  return `--x\r\nContent-Disposition: ${disposition}${type}\r\n\r\n${value}\r\n`;
}

describe("bad input: each a 4xx with its code, and the session carries on", () => {
  const big = "x".repeat(1024 * 1024 + 10);
  const cases: {
    name: string;
    method?: "POST" | "GET" | "PATCH";
    url: string;
    body?: string;
    contentType?: string;
    status: number;
    code: string;
  }[] = [
    { name: "bad JSON", url: "/inputs", body: "{not json", status: 400, code: "bad_json" },
    { name: "empty JSON body", url: "/inputs", body: "", status: 400, code: "bad_json" },
    {
      name: "JSON that is not an object",
      url: "/inputs",
      body: "[1,2]",
      status: 400,
      code: "invalid_request",
    },
    {
      name: "text missing",
      url: "/inputs",
      body: '{"delivery":"queue"}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "text a number",
      url: "/inputs",
      body: '{"text":1,"delivery":"queue"}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "delivery unknown",
      url: "/inputs",
      body: '{"text":"x","delivery":"now"}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an unknown field",
      url: "/inputs",
      body: '{"text":"x","delivery":"queue","deliver":"steer"}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an attachment of no known shape",
      url: "/inputs",
      body: '{"text":"x","delivery":"queue","attachments":[{"url":"x"}]}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an attachment outside the directory",
      url: "/inputs",
      body: '{"text":"x","delivery":"queue","attachments":[{"path":"../../etc/passwd"}]}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an attachment path that is a URL",
      url: "/inputs",
      body: '{"text":"x","delivery":"queue","attachments":[{"path":"file:///etc/passwd"}]}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an attachment that does not exist",
      url: "/inputs",
      body: '{"text":"x","delivery":"queue","attachments":[{"path":"missing.txt"}]}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "a malformed data URL",
      url: "/inputs",
      body: '{"text":"x","delivery":"queue","attachments":[{"name":"a","dataUrl":"data:nocomma"}]}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an attachment over the limit",
      url: "/inputs",
      body: JSON.stringify({
        text: "x",
        delivery: "queue",
        attachments: [{ name: "a", dataUrl: `data:text/plain;base64,${"QUJD".repeat(400)}` }],
      }),
      status: 413,
      code: "too_large",
    },
    {
      name: "a body over 1 MiB",
      url: "/inputs",
      body: JSON.stringify({ text: big, delivery: "queue" }),
      status: 413,
      code: "too_large",
    },
    {
      name: "a text/plain body",
      url: "/inputs",
      body: "hello",
      contentType: "text/plain",
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an unsupported content type",
      url: "/inputs",
      body: "<x/>",
      contentType: "application/xml",
      status: 400,
      code: "invalid_request",
    },
    {
      name: "multipart without a boundary",
      url: "/inputs",
      body: "garbage",
      contentType: "multipart/form-data",
      status: 400,
      code: "invalid_request",
    },
    {
      name: "a multipart body cut short",
      url: "/inputs",
      body: `${part("text", "hi")}--x\r\nContent-Disposition: form-data; name="delivery"\r\n\r\nqu`,
      contentType: "multipart/form-data; boundary=x",
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an unknown multipart field",
      url: "/inputs",
      body: `${part("text", "hi")}${part("delivery", "queue")}${part("urgent", "yes")}--x--\r\n`,
      contentType: "multipart/form-data; boundary=x",
      status: 400,
      code: "invalid_request",
    },
    {
      name: "a multipart file over the limit",
      url: "/inputs",
      body: `${part("text", "hi")}${part("delivery", "queue")}${part("f", "x".repeat(2000), "big.txt")}--x--\r\n`,
      contentType: "multipart/form-data; boundary=x",
      status: 413,
      code: "too_large",
    },
    {
      name: "an unknown permission ask",
      url: "/permissions/per_nope",
      body: '{"reply":"once"}',
      status: 404,
      code: "not_found",
    },
    {
      name: "a bad permission reply",
      url: "/permissions/per_nope",
      body: '{"reply":"sometimes"}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an unknown question",
      url: "/questions/que_nope",
      body: '{"answers":[["a"]]}',
      status: 404,
      code: "not_found",
    },
    {
      name: "answers of the wrong shape",
      url: "/questions/que_nope",
      body: '{"answers":["a"]}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "rejecting an unknown question",
      url: "/questions/que_nope/reject",
      status: 404,
      code: "not_found",
    },
    {
      name: "a model without modelID",
      url: "/model",
      body: '{"providerID":"demo"}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an empty title",
      method: "PATCH",
      url: "",
      body: '{"title":""}',
      status: 400,
      code: "invalid_request",
    },
    {
      name: "a transcript from a negative seq",
      method: "GET",
      url: "/transcript?after=-1",
      status: 400,
      code: "invalid_request",
    },
    {
      name: "an unknown session",
      url: "/../ses_nope/inputs",
      body: '{"text":"x","delivery":"queue"}',
      status: 404,
      code: "not_found",
    },
  ];

  it.each(cases)(
    "$name → $status $code",
    async ({ method = "POST", url, body, contentType, status, code }) => {
      const { app, id, backend, post } = await withSession({ limits: { attachmentBytes: 1000 } });
      const target = url.startsWith("/../")
        ? `/v1/sessions/${url.slice(4)}`
        : `/v1/sessions/${id}${url}`;
      const response = await app.inject({
        method,
        url: target,
        headers: {
          ...AUTH,
          ...(body === undefined ? {} : { "content-type": contentType ?? "application/json" }),
        },
        ...(body === undefined ? {} : { payload: body }),
      });
      expect(response.statusCode).toBe(status);
      const error = response.json().error;
      expect(error.code).toBe(code);
      expect(error.message.length).toBeGreaterThan(20);
      expect(response.body).not.toMatch(/\n\s+at /); // no stack trace
      expect(backend.prompts).toHaveLength(0);
      // The session carries on.
      expect((await post("/inputs", { text: "after", delivery: "queue" })).statusCode).toBe(202);
      expect(backend.prompts.map((prompt) => prompt.text)).toEqual(["after"]);
    },
  );

  it.each([
    ["an over-long session id", `/v1/sessions/${"x".repeat(600)}`],
    ["a bad %-escape in the path", "/v1/sessions/%ZZ"],
  ])("%s → 400 invalid_request, as JSON", async (_name, url) => {
    const { app } = await withSession();
    const response = await app.inject({ url, headers: AUTH });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe("invalid_request");
  });

  it("a creation with a relative directory → 400", async () => {
    const { app } = await withSession();
    const response = await app.inject({
      method: "POST",
      url: "/v1/sessions",
      headers: JSON_HEADERS,
      payload: { directory: "rel" },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/absolute/);
  });

  // Found by the reliability suite's malformed-requests scenario: a `null` body created a
  // session (201), and a directory that is not there came back from OpenCode as a 502.
  it.each([
    ["a null body", "null", /expected object/],
    ["a directory that does not exist", '{"directory":"/nonexistent-ocb-dir"}', /does not exist/],
    ["a directory that is a file", '{"directory":"/etc/hostname"}', /not a directory/],
  ])("a creation with %s → 400 invalid_request", async (_name, payload, message) => {
    const { app } = await withSession();
    const response = await app.inject({
      method: "POST",
      url: "/v1/sessions",
      headers: JSON_HEADERS,
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: "invalid_request", message });
  });

  it("an input to a session whose directory was deleted since → 409 conflict, saying what to do", async () => {
    const { directory, post } = await withSession();
    rmSync(directory, { recursive: true, force: true });
    const response = await post("/inputs", { text: "hi", delivery: "queue" });
    expect(response.statusCode).toBe(409);
    expect(response.json().error).toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/directory .* no longer exists, .* start a new session/),
    });
  });
});
