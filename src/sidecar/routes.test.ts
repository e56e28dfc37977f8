/**
 * The REST routes over sessions on the in-process backend (`app.inject()`, no OpenCode):
 * sessions, metrics, idempotency keys, attachments, the OpenAPI document. Malformed requests
 * are in bad-input.test.ts; the same flows against a real OpenCode in test/e2e/sidecar-api.test.ts.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { recordingLogger } from "../../test/support/recording-logger.js";
import { AUTH, JSON_HEADERS, sessionHarnesses } from "../../test/support/sidecar-harness.js";
import { CANONICAL_TYPES } from "../events/canonical.js";
import { ConversationSchema } from "../wire/http.js";

const withSession = sessionHarnesses();

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
    expect(released.json()).toMatchObject({
      id,
      open: false,
      state: "released",
      capabilities: { nativeSteer: false },
    });
    const opened = await app.inject({ url: `/v1/sessions/${id}`, headers: AUTH });
    expect(opened.json()).toMatchObject({ id, open: true });
    expect(
      (await app.inject({ method: "DELETE", url: `/v1/sessions/${id}`, headers: AUTH })).json(),
    ).toEqual({ ok: true });
    const killed = await app.inject({ url: `/v1/sessions/${id}`, headers: AUTH });
    expect(killed.statusCode).toBe(409);
    expect(killed.json().error.code).toBe("conflict");
  });

  it("a session released behind the sidecar's back (idle release) is opened again by the next request", async () => {
    const { ctx, id, post } = await withSession();
    const session = ctx.sessions.peek(id);
    if (session === undefined) throw new Error("not open");
    await ctx.bridge.releaseSession(session);
    await vi.waitFor(() => expect(ctx.sessions.peek(id)).toBeUndefined());
    expect((await post("/inputs", { text: "again", delivery: "queue" })).statusCode).toBe(202);
    expect(ctx.sessions.peek(id)).not.toBe(session);
  });

  it("creates a session from no body at all (every field has a default)", async () => {
    const { app } = await withSession();
    const created = await app.inject({ method: "POST", url: "/v1/sessions", headers: AUTH });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ open: true, state: "open" });
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

describe("metrics and the log of turn ends", () => {
  it("counts turns by outcome and open sessions, and logs one line per turn end", async () => {
    const recorded = recordingLogger();
    const { app, backend, post, id } = await withSession({ logger: recorded });
    await post("/inputs", { text: "one", delivery: "queue" });
    backend.step(1);
    backend.end();
    await post("/inputs", { text: "two", delivery: "queue" });
    await post("/interrupt", {});
    await vi.waitFor(() => {
      expect(recorded.entries.filter((entry) => entry.message === "turn ended")).toHaveLength(2);
    });
    const text = (await app.inject({ url: "/metrics", headers: AUTH })).body;
    expect(text).toContain('ocb_turns_total{outcome="completed"} 1');
    expect(text).toContain('ocb_turns_total{outcome="interrupted"} 1');
    expect(text).toContain("ocb_open_sessions 1");
    expect(text).toContain('ocb_session_deltas{kind="dropped_deltas"} 0');
    expect(text).toMatch(
      /ocb_http_requests_total\{route="\/v1\/sessions\/:id\/inputs",method="POST",status="202"\} 2/,
    );
    const ends = recorded.entries.filter((entry) => entry.message === "turn ended");
    expect(ends.map((entry) => entry.fields)).toEqual([
      expect.objectContaining({ sessionId: id, outcome: "completed" }),
      expect.objectContaining({ sessionId: id, outcome: "interrupted" }),
    ]);
  });
});

describe("agents", () => {
  it("a switch where the backend cannot: 422 unsupported; a body without a name: 400", async () => {
    const { post } = await withSession();
    const refused = await post("/agent", { agent: "plan" });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({
      code: "unsupported",
      message: "the subprocess backend cannot switch a session's agent",
    });
    for (const body of [
      {},
      { agent: "" },
      { agent: "plan", extra: 1 },
      { agent: "x".repeat(201) },
    ]) {
      const invalid = await post("/agent", body);
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json().error.code).toBe("invalid_request");
    }
  });
});

describe("the user's own OpenCode sessions", () => {
  it("where the backend cannot: 422 unsupported; a malformed import body or a directory not allowed: 400 and 403", async () => {
    const { app } = await withSession();
    const listed = await app.inject({ url: "/v1/opencode-sessions", headers: AUTH });
    expect(listed.statusCode).toBe(422);
    expect(listed.json().error).toMatchObject({
      code: "unsupported",
      message: "the subprocess backend cannot import OpenCode sessions",
    });
    const imported = await app.inject({
      method: "POST",
      url: "/v1/sessions/import",
      headers: JSON_HEADERS,
      payload: { upstreamId: "ses_mine" },
    });
    expect(imported.statusCode).toBe(422);
    expect(imported.json().error.code).toBe("unsupported");
    for (const payload of [{}, { upstreamId: "" }, { upstreamId: "ses_mine", extra: 1 }]) {
      const invalid = await app.inject({
        method: "POST",
        url: "/v1/sessions/import",
        headers: JSON_HEADERS,
        payload,
      });
      expect(invalid.statusCode).toBe(400);
    }
    const relative = await app.inject({
      url: "/v1/opencode-sessions?directory=here",
      headers: AUTH,
    });
    expect(relative.statusCode).toBe(400);
    for (const request of [
      { url: "/v1/opencode-sessions?directory=%2F", headers: AUTH },
      {
        method: "POST" as const,
        url: "/v1/sessions/import",
        headers: JSON_HEADERS,
        payload: { upstreamId: "ses_mine", directory: "/" },
      },
    ]) {
      const refused = await app.inject(request);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe("forbidden");
    }
  });
});

describe("forks and continuations", () => {
  it("where the backend cannot: 422 unsupported; a fork body without an input id: 400; an unknown session: 404", async () => {
    const { app, ctx, id, post } = await withSession();
    const fork = await post("/fork", { inputId: "in_1" });
    expect(fork.statusCode).toBe(422);
    expect(fork.json().error).toMatchObject({
      code: "unsupported",
      message: "the subprocess backend cannot fork a session",
    });
    const continued = await post("/continue", {});
    expect(continued.statusCode).toBe(422);
    expect(continued.json().error.code).toBe("unsupported");
    // A continuation refused leaves the session followed as it was.
    expect(ctx.sessions.peek(id)).toBeDefined();
    for (const body of [
      {},
      { inputId: "" },
      { inputId: "in_1", extra: 1 },
      { inputId: "x".repeat(201) },
    ]) {
      const invalid = await post("/fork", body);
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json().error.code).toBe("invalid_request");
    }
    const unknown = await app.inject({
      method: "POST",
      url: "/v1/sessions/ses_nope/fork",
      headers: JSON_HEADERS,
      payload: { inputId: "in_1" },
    });
    expect(unknown.statusCode).toBe(404);
    expect(id).not.toBe("ses_nope");
  });
});

describe("commands and compaction", () => {
  it("where the backend cannot: 422 unsupported; a malformed command body: 400", async () => {
    const { post } = await withSession();
    const run = await post("/command", { name: "greet", delivery: "queue" });
    expect(run.statusCode).toBe(422);
    expect(run.json().error.message).toBe("the subprocess backend cannot run slash commands");
    const compact = await post("/compact", {});
    expect(compact.statusCode).toBe(422);
    expect(compact.json().error.message).toMatch(/^the subprocess backend cannot compact/);
    for (const body of [
      { name: "greet" },
      { name: "", delivery: "queue" },
      { name: "greet", delivery: "now" },
      { name: "greet", delivery: "queue", extra: 1 },
      { name: "greet", arguments: 3, delivery: "queue" },
    ]) {
      const invalid = await post("/command", body);
      expect(invalid.statusCode, JSON.stringify(body)).toBe(400);
      expect(invalid.json().error.code).toBe("invalid_request");
    }
  });
});

describe("changes, todos and context", () => {
  it("where the backend cannot tell: 422 unsupported; a bad ?turn=: 400; a turn not the session's: 404", async () => {
    const { app, id } = await withSession();
    const get = (path: string) =>
      app.inject({ method: "GET", url: `/v1/sessions/${id}${path}`, headers: AUTH });
    for (const [path, what] of [
      ["/changes", "tell a session's file changes"],
      ["/vcs", "tell the working tree's status"],
      ["/todos", "read a session's todo list"],
    ] as const) {
      const refused = await get(path);
      expect(refused.statusCode, path).toBe(422);
      expect(refused.json().error).toMatchObject({
        code: "unsupported",
        message: `the subprocess backend cannot ${what}`,
      });
    }
    for (const query of ["?turn=", `?turn=${"x".repeat(201)}`, "?turn=t&other=1"]) {
      for (const path of ["/changes", "/context"]) {
        const invalid = await get(`${path}${query}`);
        expect(invalid.statusCode, `${path}${query}`).toBe(400);
        expect(invalid.json().error.code).toBe("invalid_request");
      }
    }
    // What it spent is read from its events, on every backend: nothing before a step.
    const context = await get("/context");
    expect(context.statusCode).toBe(200);
    expect(context.json()).toEqual({ children: [] });
    const unknown = await get("/context?turn=turn_msg_nosuchturn");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toMatch(/^no turn turn_msg_nosuchturn in session /);
  });
});

describe("files", () => {
  it("lists, reads and finds the session's files; a query that does not match the API is a 400", async () => {
    const { app, id, directory } = await withSession();
    writeFileSync(join(directory, "notes-file.md"), "kept notes\n");
    const get = (url: string) =>
      app.inject({ url: `/v1/sessions/${id}/files${url}`, headers: AUTH });
    expect((await get("")).json().entries).toContainEqual({
      name: "notes-file.md",
      path: "notes-file.md",
      type: "file",
    });
    expect((await get("/content?path=notes-file.md")).json()).toMatchObject({
      content: "kept notes\n",
      binary: false,
    });
    expect((await get("/find?q=ntf")).json().files[0]).toEqual({
      path: "notes-file.md",
      type: "file",
    });
    const outside = await get("/content?path=../x");
    expect(outside.statusCode).toBe(400);
    expect(outside.json().error.message).toMatch(/outside the session directory/);
    for (const url of ["/content", "/content?path=", "/find?q=", "/find?q=a&limit=0", "?depth=1"]) {
      const invalid = await get(url);
      expect(invalid.statusCode, url).toBe(400);
      expect(invalid.json().error.code, url).toBe("invalid_request");
    }
  });
});

describe("terminal", () => {
  it("where the backend has none: 422 unsupported before any upgrade; a bad size: 400", async () => {
    const { app, id } = await withSession();
    const refused = await app.inject({ url: `/v1/sessions/${id}/terminal`, headers: AUTH });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({
      code: "unsupported",
      message: "the subprocess backend cannot open a terminal",
    });
    for (const query of ["cols=0&rows=10", "cols=80&rows=x", "cols=1001&rows=10", "cols=80"]) {
      const invalid = await app.inject({
        url: `/v1/sessions/${id}/terminal?${query}`,
        headers: AUTH,
      });
      expect(invalid.statusCode, query).toBe(400);
    }
    const missing = await app.inject({ url: "/v1/sessions/ses_none/terminal", headers: AUTH });
    expect(missing.statusCode).toBe(404);
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
    // Upstream gets a plain data: URL; the transcript keeps a reference, not the bytes.
    expect(files[0]?.uri).toBe("data:text/plain;base64,aGVsbG8=");
    expect(files[0]?.ref).toBe("data:text/plain;name=a.txt;bytes=5");
    expect(files[1]?.ref).toBe(join(directory, "notes.txt"));
  });

  it("serves an image an input carried again, and says when it does not keep one", async () => {
    const { app, id, post } = await withSession();
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const sent = await post("/inputs", {
      text: "look",
      delivery: "queue",
      attachments: [
        { name: "a.txt", dataUrl: "data:text/plain;base64,aGVsbG8=" },
        { name: "pixel.png", dataUrl: `data:image/png;base64,${png.toString("base64")}` },
      ],
    });
    expect(sent.statusCode).toBe(202);
    const { inputId } = sent.json() as { inputId: string };
    const url = (index: number) => `/v1/sessions/${id}/inputs/${inputId}/attachments/${index}`;
    const image = await app.inject({ url: url(1), headers: AUTH });
    expect(image.statusCode).toBe(200);
    expect(image.headers["content-type"]).toBe("image/png");
    expect(image.headers["content-security-policy"]).toBe("default-src 'none'; sandbox");
    expect(image.rawPayload).toEqual(png);
    // A text file is no image to draw; an index past the input's, or another input's: none.
    for (const other of [url(0), url(2), `/v1/sessions/${id}/inputs/in_other/attachments/1`]) {
      const missing = await app.inject({ url: other, headers: AUTH });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.message).toMatch(/is not kept here/);
    }
    expect((await app.inject({ url: url(1) })).statusCode).toBe(401);
    expect((await app.inject({ url: url(99), headers: AUTH })).statusCode).toBe(400);
  });

  it("takes a percent-encoded data URL as its bytes", async () => {
    const { backend, post } = await withSession();
    const sent = await post("/inputs", {
      text: "look",
      delivery: "queue",
      attachments: [{ name: "b.txt", dataUrl: "data:,hello%20there" }],
    });
    expect(sent.statusCode).toBe(202);
    const file = backend.prompts[0]?.files?.[0];
    expect(file).toMatchObject({ name: "b.txt", mime: "text/plain" });
    expect(Buffer.from(file?.uri.split(",")[1] ?? "", "base64").toString()).toBe("hello there");
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

describe("the OpenAPI document", () => {
  it("is generated from the schemas and lists every REST route", async () => {
    const { app } = await withSession();
    const document = (await app.inject({ url: "/v1/openapi.json", headers: AUTH })).json();
    expect(document.openapi).toBe("3.1.0");
    const routes = Object.entries(document.paths as Record<string, object>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    // The streams' routes (when registered) are listed too; these are the REST ones.
    expect(routes).toEqual(
      expect.arrayContaining([
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
        "GET /v1/agents",
        "POST /v1/sessions/{id}/agent",
        "POST /v1/sessions/{id}/fork",
        "POST /v1/sessions/{id}/continue",
        "GET /v1/commands",
        "POST /v1/sessions/{id}/command",
        "POST /v1/sessions/{id}/compact",
        "GET /v1/mcp",
        "GET /v1/skills",
        "GET /v1/sessions/{id}/changes",
        "GET /v1/sessions/{id}/vcs",
        "GET /v1/sessions/{id}/todos",
        "GET /v1/sessions/{id}/context",
        "GET /v1/sessions/{id}/files",
        "GET /v1/sessions/{id}/files/content",
        "GET /v1/sessions/{id}/files/find",
        "POST /v1/sessions/{id}/permissions/{requestId}",
        "POST /v1/sessions/{id}/questions/{requestId}",
        "POST /v1/sessions/{id}/questions/{requestId}/reject",
        "POST /v1/sessions/{id}/release",
        "POST /v1/tickets",
      ]),
    );
    const inputs = document.paths["/v1/sessions/{id}/inputs"].post;
    expect(inputs.requestBody.content["application/json"].schema.properties.delivery.enum).toEqual([
      "steer",
      "queue",
    ]);
    expect(inputs.responses["202"]).toBeDefined();
    // The streams' shapes too: the canonical event and the WebSocket messages.
    const schemas = document.components.schemas;
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining(["CanonicalEvent", "WsClientMessage", "WsServerMessage"]),
    );
    expect(JSON.stringify(schemas.WsServerMessage)).toContain(
      '"$ref":"#/components/schemas/CanonicalEvent"',
    );
    expect(schemas.CanonicalEvent.oneOf).toHaveLength(CANONICAL_TYPES.length);
  });
});
