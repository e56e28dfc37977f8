/**
 * The REST routes over sessions on the in-process backend (`app.inject()`, no OpenCode):
 * validation and error codes, idempotency keys, attachments, asks. The same flows against a
 * real OpenCode are in test/e2e/sidecar-api.test.ts.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AUTH, type SidecarHarness, sidecarHarness } from "../../test/support/sidecar-harness.js";
import { ConversationSchema, SessionInfoSchema } from "./protocol/http.js";

const JSON_HEADERS = { ...AUTH, "content-type": "application/json" };

const harnesses: SidecarHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

async function withSession(options: Parameters<typeof sidecarHarness>[0] = {}) {
  const harness = sidecarHarness(options);
  harnesses.push(harness);
  const created = await harness.app.inject({
    method: "POST",
    url: "/v1/sessions",
    headers: JSON_HEADERS,
    payload: { title: "unit" },
  });
  expect(created.statusCode).toBe(201);
  const info = SessionInfoSchema.parse(created.json());
  const backend = harness.backends.get(info.id);
  if (backend === undefined) throw new Error("no backend");
  const post = (url: string, payload: unknown) =>
    harness.app.inject({
      method: "POST",
      url: `/v1/sessions/${info.id}${url}`,
      headers: JSON_HEADERS,
      payload: JSON.stringify(payload),
    });
  return { ...harness, id: info.id, info, backend, post };
}

describe("sessions", () => {
  it("creates, lists, gets, renames, releases, opens again and kills a session", async () => {
    const { app, id, info } = await withSession();
    expect(info).toMatchObject({
      title: "unit",
      open: true,
      state: "open",
      running: false,
      lastSeq: 0,
    });
    const listed = await app.inject({ url: "/v1/sessions", headers: AUTH });
    expect(listed.json().sessions.map((session: { id: string }) => session.id)).toEqual([id]);
    const renamed = await app.inject({
      method: "PATCH",
      url: `/v1/sessions/${id}`,
      headers: JSON_HEADERS,
      payload: { title: "new" },
    });
    expect(renamed.json()).toMatchObject({ id, title: "new" });
    const released = await app.inject({
      method: "POST",
      url: `/v1/sessions/${id}/release`,
      headers: AUTH,
    });
    expect(released.json()).toMatchObject({ id, open: false });
    const opened = await app.inject({ url: `/v1/sessions/${id}`, headers: AUTH });
    expect(opened.json()).toMatchObject({ id, open: true });
    expect(
      (await app.inject({ method: "DELETE", url: `/v1/sessions/${id}`, headers: AUTH })).json(),
    ).toEqual({ ok: true });
    const killed = await app.inject({ url: `/v1/sessions/${id}`, headers: AUTH });
    expect(killed.statusCode).toBe(409);
    expect(killed.json().error.code).toBe("conflict");
  });

  it("serves the conversation and the NDJSON transcript of a turn", async () => {
    const { app, id, backend, post } = await withSession();
    const sent = await post("/inputs", { text: "hi", delivery: "queue" });
    expect(sent.statusCode).toBe(202);
    expect(sent.json()).toMatchObject({ inputId: "in_1", turnId: expect.any(String) });
    backend.step(2);
    backend.end();
    const conversation = ConversationSchema.parse(
      (await app.inject({ url: `/v1/sessions/${id}/conversation`, headers: AUTH })).json(),
    );
    expect(conversation.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    const transcript = await app.inject({ url: `/v1/sessions/${id}/transcript`, headers: AUTH });
    expect(transcript.headers["content-type"]).toMatch(/^application\/x-ndjson/);
    const lines = transcript.body
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((event) => event.seq)).toEqual(lines.map((_, index) => index + 1));
    expect(lines.at(-1)).toMatchObject({ type: "turn.ended" });
    expect(lines.every((event) => event.durable === true)).toBe(true);
    const after = await app.inject({ url: `/v1/sessions/${id}/transcript?after=3`, headers: AUTH });
    expect(after.body.trim().split("\n")).toHaveLength(lines.length - 3);
  });
});

describe("inputs", () => {
  it("admits a send retried with the same idempotency key once, and answers it the same", async () => {
    const { backend, post } = await withSession();
    const body = { text: "once", delivery: "queue", idempotencyKey: "key-1" };
    const first = await post("/inputs", body);
    const again = await post("/inputs", body);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(first.json());
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(backend.prompts.map((prompt) => prompt.text)).toEqual(["once"]);
  });

  it("a key is per session; the same key with another input is a 409", async () => {
    const { post } = await withSession();
    await post("/inputs", { text: "a", delivery: "queue", idempotencyKey: "key-2" });
    const other = await post("/inputs", { text: "b", delivery: "queue", idempotencyKey: "key-2" });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.message).toMatch(/use a new key/);
  });

  it("a steer while a turn runs where the backend cannot steer: 422 with ifCannotSteer reject, else the bridge's fallback", async () => {
    const { backend, post } = await withSession();
    const first = await post("/inputs", { text: "first", delivery: "queue" });
    expect(backend.running).toBeDefined();
    const refused = await post("/inputs", {
      text: "steer",
      delivery: "steer",
      ifCannotSteer: "reject",
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({
      code: "unsupported",
      message: expect.stringMatching(/cannot steer/),
    });
    const held = await post("/inputs", { text: "steer", delivery: "steer" });
    expect(held.statusCode).toBe(202);
    // Held by the runtime (queued, the default fallback): the next turn, not the running one.
    expect(held.json().turnId).not.toBe(first.json().turnId);
    expect(backend.prompts.map((prompt) => prompt.text)).toEqual(["first"]);
  });

  it("takes attachments as data URLs and paths inside the session directory", async () => {
    const { backend, post, directory } = await withSession();
    writeFileSync(join(directory, "notes.txt"), "notes");
    const sent = await post("/inputs", {
      text: "look",
      delivery: "queue",
      attachments: [
        { name: "a.txt", dataUrl: "data:text/plain;base64,aGVsbG8=" },
        { path: "notes.txt" },
      ],
    });
    expect(sent.statusCode).toBe(202);
    const files = backend.prompts[0]?.files ?? [];
    expect(files.map((file) => file.name)).toEqual(["a.txt", "notes.txt"]);
    expect(files[1]?.ref).toBe(join(directory, "notes.txt"));
  });

  it("takes a multipart input with files", async () => {
    const { app, id, backend } = await withSession();
    const boundary = "----unit";
    const part = (name: string, value: string, file?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file === undefined ? "" : `; filename="${file}"\r\nContent-Type: text/plain`}\r\n\r\n${value}\r\n`;
    const payload = `${part("text", "with a file")}${part("delivery", "queue")}${part("file", "file body", "f.txt")}--${boundary}--\r\n`;
    const sent = await app.inject({
      method: "POST",
      url: `/v1/sessions/${id}/inputs`,
      headers: { ...AUTH, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(sent.statusCode).toBe(202);
    expect(backend.prompts[0]?.text).toBe("with a file");
    expect(backend.prompts[0]?.files?.map((file) => [file.name, file.mime])).toEqual([
      ["f.txt", "text/plain"],
    ]);
  });
});

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
});

describe("the OpenAPI document", () => {
  it("is generated from the schemas and lists every route", async () => {
    const { app } = await withSession();
    const document = (await app.inject({ url: "/v1/openapi.json", headers: AUTH })).json();
    expect(document.openapi).toBe("3.1.0");
    const routes = Object.entries(document.paths as Record<string, object>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        "GET /healthz",
        "GET /v1/models",
        "GET /v1/sessions",
        "GET /v1/sessions/{id}",
        "GET /v1/sessions/{id}/conversation",
        "GET /v1/sessions/{id}/transcript",
        "PATCH /v1/sessions/{id}",
        "DELETE /v1/sessions/{id}",
        "POST /v1/sessions",
        "POST /v1/sessions/{id}/inputs",
        "POST /v1/sessions/{id}/interrupt",
        "POST /v1/sessions/{id}/model",
        "POST /v1/sessions/{id}/permissions/{requestId}",
        "POST /v1/sessions/{id}/questions/{requestId}",
        "POST /v1/sessions/{id}/questions/{requestId}/reject",
        "POST /v1/sessions/{id}/release",
        "POST /v1/tickets",
      ].sort(),
    );
    const inputs = document.paths["/v1/sessions/{id}/inputs"].post;
    expect(inputs.requestBody.content["application/json"].schema.properties.delivery.enum).toEqual([
      "steer",
      "queue",
    ]);
    expect(inputs.responses["202"]).toBeDefined();
  });
});
