/**
 * End to end: the sidecar's REST API over a real bridge (the 1.18.33 binary, the scripted
 * model), through a listening sidecar and `fetch`, as an app calls it. The flow (create, send,
 * an idempotent retry, steer, interrupt, model switch, a permission with its diff, a question,
 * an image, conversation, transcript), then a table of malformed requests, each answered with
 * its documented 4xx while the session carries on. Streams are tested in sidecar-streams.test.ts.
 */

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import type { Sidecar } from "../../src/sidecar/sidecar.js";
import { secondScriptedModelId } from "../../src/testing/demo-provider.js";
import type { ScriptedModel } from "../../src/testing/scripted-model/index.js";
import { CanonicalEventSchema } from "../../src/wire/canonical-schema.js";
import { ConversationSchema, type SessionInfo, SessionInfoSchema } from "../../src/wire/http.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { recordingLogger } from "../support/recording-logger.js";

const TOKEN = "e2e-sidecar-token-0123456789";
/** Safety net for a turn to reach a state (a real server on a loaded machine): not what is tested. */
const STATE_BOUND_MS = 60_000;
// A 1x1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

const logger = recordingLogger();
const real = useRealSidecar({
  permissions: "ask",
  token: TOKEN,
  logger,
  label: "sidecar api e2e",
});
let model: ScriptedModel;
let directory: string;
let sidecar: Sidecar;
beforeAll(() => {
  ({ model, directory, sidecar } = real.current);
});

interface Answer {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined || body instanceof FormData
        ? {}
        : { "content-type": "application/json" }),
      ...headers,
    },
    signal: AbortSignal.timeout(STATE_BOUND_MS),
  };
  if (body !== undefined) {
    init.body = typeof body === "string" || body instanceof FormData ? body : JSON.stringify(body);
  }
  const response = await fetch(`${sidecar.url}${path}`, init);
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

async function createSession(title: string): Promise<SessionInfo> {
  const created = await call("POST", "/v1/sessions", { title });
  expect(created.status).toBe(201);
  return SessionInfoSchema.parse(created.body);
}

async function info(id: string): Promise<SessionInfo> {
  return SessionInfoSchema.parse((await call("GET", `/v1/sessions/${id}`)).body);
}

/** The session's durable events, from the NDJSON transcript, each checked by the wire schema. */
async function transcript(id: string): Promise<CanonicalEvent[]> {
  const answer = await call("GET", `/v1/sessions/${id}/transcript`);
  expect(answer.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
  return answer.text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => CanonicalEventSchema.parse(JSON.parse(line)) as CanonicalEvent);
}

/** Polls the transcript until `done` holds (bounded). */
async function until(
  what: string,
  id: string,
  done: (events: CanonicalEvent[], session: SessionInfo) => boolean,
): Promise<CanonicalEvent[]> {
  const deadline = Date.now() + STATE_BOUND_MS;
  for (;;) {
    const events = await transcript(id);
    if (done(events, await info(id))) return events;
    if (Date.now() > deadline)
      throw new Error(`never reached ${what}: ${JSON.stringify(events.map((e) => e.type))}`);
    await delay(100);
  }
}

const endOf = (turnId: string) => (events: CanonicalEvent[]) =>
  events.find((event) => event.type === "turn.ended" && event.turnId === turnId);

async function sendAndWait(id: string, text: string): Promise<CanonicalEvent> {
  const sent = await call("POST", `/v1/sessions/${id}/inputs`, { text, delivery: "queue" });
  expect(sent.status).toBe(202);
  const { turnId } = sent.body as { turnId: string };
  const events = await until(
    `the end of ${turnId}`,
    id,
    (list) => endOf(turnId)(list) !== undefined,
  );
  const ended = endOf(turnId)(events);
  if (ended === undefined) throw new Error("no end");
  return ended;
}

describe("the REST flow over a real bridge", () => {
  it("creates a session and runs a turn; a retried send with the same key is admitted once", async () => {
    const session = await createSession("flow");
    expect(session).toMatchObject({ open: true, running: false, backend: "serve", lastSeq: 0 });
    expect(session.capabilities?.nativeSteer).toBe(true);
    const body = { text: "[[reply hello there]]", delivery: "queue", idempotencyKey: "flow-1" };
    const first = await call("POST", `/v1/sessions/${session.id}/inputs`, body);
    expect(first.status).toBe(202);
    const retried = await call("POST", `/v1/sessions/${session.id}/inputs`, body);
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual(first.body);
    const { turnId, inputId } = first.body as { turnId: string; inputId: string };
    const events = await until(
      "the turn's end",
      session.id,
      (list) => endOf(turnId)(list) !== undefined,
    );
    expect(endOf(turnId)(events)?.data).toMatchObject({
      outcome: "completed",
      text: "hello there",
    });
    const admitted = events.filter((event) => event.type === "input.admitted");
    expect(admitted.map((event) => event.type === "input.admitted" && event.data.inputId)).toEqual([
      inputId,
    ]);
    // The transcript is the durable events in seq order; the conversation folds them.
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const conversation = ConversationSchema.parse(
      (await call("GET", `/v1/sessions/${session.id}/conversation`)).body,
    );
    expect(conversation.lastSeq).toBe(events.at(-1)?.seq);
    expect(conversation.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect((await info(session.id)).lastSeq).toBe(events.at(-1)?.seq);
  });

  it("steer joins the running turn; interrupt ends it; the session takes the next input", async () => {
    const session = await createSession("steer");
    const sent = await call("POST", `/v1/sessions/${session.id}/inputs`, {
      text: "[[slow 400 50]]",
      delivery: "queue",
    });
    const { turnId } = sent.body as { turnId: string };
    await until("the turn streaming", session.id, (events) =>
      events.some((event) => event.type === "text.started" && event.turnId === turnId),
    );
    expect((await info(session.id)).running).toBe(true);
    const steered = await call("POST", `/v1/sessions/${session.id}/inputs`, {
      text: "also this",
      delivery: "steer",
    });
    expect(steered.status).toBe(202);
    expect((steered.body as { turnId: string }).turnId).toBe(turnId);
    expect((await call("POST", `/v1/sessions/${session.id}/interrupt`)).status).toBe(200);
    const events = await until(
      "the interrupted end",
      session.id,
      (list) => endOf(turnId)(list) !== undefined,
    );
    expect(endOf(turnId)(events)?.data).toMatchObject({ outcome: "interrupted" });
    expect((await sendAndWait(session.id, "[[reply after]]")).data).toMatchObject({
      outcome: "completed",
      text: "after",
    });
  });

  it("switches the model: the next turn runs on it", async () => {
    const session = await createSession("model");
    const switched = await call("POST", `/v1/sessions/${session.id}/model`, {
      providerID: "demo",
      modelID: secondScriptedModelId,
    });
    expect(switched.status).toBe(200);
    const before = model.requests.length;
    await sendAndWait(session.id, "[[reply on the second model]]");
    expect(model.requests.slice(before).map((request) => request.model)).toContain(
      secondScriptedModelId,
    );
    expect((await info(session.id)).model).toEqual({
      providerID: "demo",
      modelID: secondScriptedModelId,
    });
  });

  it("answers a permission ask (its diff in the ask) and a question", async () => {
    const session = await createSession("asks");
    const file = join(directory, "asked.txt");
    const write = `[[tool write ${JSON.stringify({ path: file, content: "hello\n" })}]] [[then wrote]]`;
    const sent = await call("POST", `/v1/sessions/${session.id}/inputs`, {
      text: write,
      delivery: "queue",
    });
    const { turnId } = sent.body as { turnId: string };
    // The ask is waited for in the transcript (read before the session's info in `until`).
    const asked = (
      await until("the permission ask", session.id, (list) =>
        list.some((event) => event.type === "permission.asked"),
      )
    ).find((event) => event.type === "permission.asked");
    if (asked?.type !== "permission.asked") throw new Error("no permission.asked");
    expect(asked.data.diff).toContain("+hello");
    expect((await info(session.id)).pendingAsks).toEqual([
      expect.objectContaining({ kind: "permission", requestId: asked.data.requestId }),
    ]);
    const replied = await call(
      "POST",
      `/v1/sessions/${session.id}/permissions/${asked.data.requestId}`,
      { reply: "once" },
    );
    expect(replied.status).toBe(200);
    // Answered: a second answer finds no ask waiting.
    const again = await call(
      "POST",
      `/v1/sessions/${session.id}/permissions/${asked.data.requestId}`,
      { reply: "once" },
    );
    expect(again.status).toBe(404);
    await until("the write's end", session.id, (list) => endOf(turnId)(list) !== undefined);
    expect(readFileSync(file, "utf8")).toBe("hello\n");

    const question =
      '[[tool question {"questions":[{"question":"Pick one","header":"Pick","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]}]}]] [[then picked]]';
    const asking = await call("POST", `/v1/sessions/${session.id}/inputs`, {
      text: question,
      delivery: "queue",
    });
    const questionTurn = (asking.body as { turnId: string }).turnId;
    const current = await until("the question", session.id, (list) =>
      list.some((event) => event.type === "question.asked"),
    );
    const ask = current.find((event) => event.type === "question.asked");
    if (ask?.type !== "question.asked") throw new Error("no question.asked");
    expect((await info(session.id)).pendingAsks?.map((pending) => pending.requestId)).toEqual([
      ask.data.requestId,
    ]);
    expect(
      (
        await call("POST", `/v1/sessions/${session.id}/questions/${ask.data.requestId}`, {
          answers: [["a"]],
        })
      ).status,
    ).toBe(200);
    const events = await until(
      "the question's end",
      session.id,
      (list) => endOf(questionTurn)(list) !== undefined,
    );
    expect(events.some((event) => event.type === "question.replied")).toBe(true);
    const conversation = ConversationSchema.parse(
      (await call("GET", `/v1/sessions/${session.id}/conversation`)).body,
    );
    const parts = conversation.messages.flatMap((message) =>
      message.role === "assistant" ? message.parts : [],
    );
    expect(parts.find((part) => part.type === "permission")).toMatchObject({
      reply: "once",
      diff: expect.stringContaining("+hello"),
    });
    expect(parts.find((part) => part.type === "question")).toMatchObject({ state: "replied" });
  });

  it("attaches an image as multipart and as a data URL; the model gets it, the transcript keeps no bytes", async () => {
    const session = await createSession("image");
    const form = new FormData();
    form.set("text", "[[reply seen multipart]]");
    form.set("delivery", "queue");
    form.set("file", new Blob([PNG], { type: "image/png" }), "pixel.png");
    const before = model.requests.length;
    const sent = await call("POST", `/v1/sessions/${session.id}/inputs`, form);
    expect(sent.status).toBe(202);
    const { turnId } = sent.body as { turnId: string };
    await until("the turn's end", session.id, (list) => endOf(turnId)(list) !== undefined);
    const viaData = await call("POST", `/v1/sessions/${session.id}/inputs`, {
      text: "[[reply seen data url]]",
      delivery: "queue",
      attachments: [
        { name: "pixel.png", dataUrl: `data:image/png;base64,${PNG.toString("base64")}` },
      ],
    });
    expect(viaData.status).toBe(202);
    const second = (viaData.body as { turnId: string }).turnId;
    const events = await until(
      "the second end",
      session.id,
      (list) => endOf(second)(list) !== undefined,
    );
    const images = model.requests
      .slice(before)
      .flatMap((request) => request.attachments)
      .filter((part) => part.url === `data:image/png;base64,${PNG.toString("base64")}`);
    expect(images.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(events)).not.toContain(PNG.toString("base64"));
  });
});

describe("bad input over a real bridge: the documented 4xx, and the session carries on", () => {
  let session: SessionInfo;
  beforeAll(async () => {
    session = await createSession("bad input");
    writeFileSync(join(directory, "..", "outside-secret.txt"), "secret");
  });
  afterAll(() => rmSync(join(directory, "..", "outside-secret.txt"), { force: true }));

  const inputs = (id: string) => `/v1/sessions/${id}/inputs`;
  const ask =
    (kind: string, requestId: string, tail = "") =>
    (id: string) =>
      `/v1/sessions/${id}/${kind}/${requestId}${tail}`;
  const fixed = (path: string) => () => path;
  type Case = {
    name: string;
    path: (id: string) => string;
    body: unknown;
    status: number;
    code: string;
    method: string;
    headers: Record<string, string>;
  };
  const row = (
    name: string,
    path: (id: string) => string,
    body: unknown,
    status: number,
    code: string,
    extra: { method?: string; headers?: Record<string, string> } = {},
  ): Case => ({
    name,
    path,
    body,
    status,
    code,
    method: extra.method ?? "POST",
    headers: extra.headers ?? {},
  });
  const get = { method: "GET" };
  const input = (fields: Record<string, unknown>) => ({ text: "x", delivery: "queue", ...fields });
  const cases: Case[] = [
    row("bad JSON", inputs, "{oops", 400, "bad_json"),
    row("an empty JSON body", inputs, "", 400, "bad_json"),
    row("an array body", inputs, "[]", 400, "invalid_request"),
    row("text of the wrong type", inputs, input({ text: 5 }), 400, "invalid_request"),
    row("no delivery", inputs, { text: "x" }, 400, "invalid_request"),
    row("an unknown delivery", inputs, input({ delivery: "later" }), 400, "invalid_request"),
    row("an unknown field", inputs, input({ priority: 1 }), 400, "invalid_request"),
    row(
      "an attachment outside the directory",
      inputs,
      input({ attachments: [{ path: "../outside-secret.txt" }] }),
      400,
      "invalid_request",
    ),
    row(
      "an absolute path outside the directory",
      inputs,
      input({ attachments: [{ path: "/etc/hostname" }] }),
      400,
      "invalid_request",
    ),
    row(
      "an attachment that is missing",
      inputs,
      input({ attachments: [{ path: "nope.png" }] }),
      400,
      "invalid_request",
    ),
    row(
      "a data URL without payload",
      inputs,
      input({ attachments: [{ name: "a", dataUrl: "data:image/png;base64" }] }),
      400,
      "invalid_request",
    ),
    row("a body over 1 MiB", inputs, input({ text: "x".repeat(1_100_000) }), 413, "too_large"),
    row(
      "an unknown session",
      fixed("/v1/sessions/ses_unknown/inputs"),
      input({}),
      404,
      "not_found",
    ),
    row(
      "an unknown session's conversation",
      fixed("/v1/sessions/ses_unknown/conversation"),
      undefined,
      404,
      "not_found",
      get,
    ),
    row(
      "an unknown permission ask",
      ask("permissions", "per_unknown"),
      { reply: "once" },
      404,
      "not_found",
    ),
    row(
      "an unknown question",
      ask("questions", "que_unknown"),
      { answers: [["a"]] },
      404,
      "not_found",
    ),
    row(
      "rejecting an unknown question",
      ask("questions", "que_unknown", "/reject"),
      undefined,
      404,
      "not_found",
    ),
    row(
      "a permission reply of no kind",
      ask("permissions", "per_unknown"),
      { reply: "maybe" },
      400,
      "invalid_request",
    ),
    row(
      "answers not a list of lists",
      ask("questions", "que_unknown"),
      { answers: "a" },
      400,
      "invalid_request",
    ),
    row(
      "a model without provider",
      (id) => `/v1/sessions/${id}/model`,
      { modelID: "x" },
      400,
      "invalid_request",
    ),
    row(
      "a relative session directory",
      fixed("/v1/sessions"),
      { directory: "relative/dir" },
      400,
      "invalid_request",
    ),
    // Found by the reliability suite's malformed-requests scenario: OpenCode took a switch to
    // a model no provider has (200, then every turn failed) and answered a directory that is
    // not there with a 500 (the sidecar's 502).
    row(
      "a model no provider has",
      (id) => `/v1/sessions/${id}/model`,
      { providerID: "nobody", modelID: "nothing" },
      400,
      "invalid_request",
    ),
    row(
      "a session directory that does not exist",
      fixed("/v1/sessions"),
      { directory: "/nonexistent-ocb-dir" },
      400,
      "invalid_request",
    ),
    row("an unknown route", fixed("/v1/nothing"), undefined, 404, "not_found", get),
    row("no token", fixed("/v1/sessions"), undefined, 401, "unauthorized", {
      ...get,
      headers: { authorization: "" },
    }),
    row("a wrong token", fixed("/v1/sessions"), undefined, 401, "unauthorized", {
      ...get,
      headers: { authorization: "Bearer not-the-token-at-all" },
    }),
    row("a foreign Origin", fixed("/v1/sessions"), undefined, 403, "bad_origin", {
      ...get,
      headers: { origin: "https://evil.example" },
    }),
    row("an XML body", inputs, "<input/>", 400, "invalid_request", {
      headers: { "content-type": "application/xml" },
    }),
  ];

  it.each(cases)("$name → $status $code", async ({ method, path, body, headers, status, code }) => {
    const before = (await transcript(session.id)).length;
    const answer = await call(method, path(session.id), body, headers);
    expect(answer.status).toBe(status);
    expect((answer.body as { error: { code: string; message: string } }).error).toMatchObject({
      code,
      message: expect.any(String),
    });
    expect(answer.text).not.toMatch(/\n\s+at /);
    expect((await transcript(session.id)).length).toBe(before); // nothing admitted, nothing lost
  });

  it("a wrong Host (DNS rebinding) → 421 bad_host", async () => {
    const port = new URL(sidecar.url).port;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: "127.0.0.1",
          port,
          path: "/v1/sessions",
          headers: { host: `rebound.example:${port}`, authorization: `Bearer ${TOKEN}` },
        },
        (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => {
            text += chunk.toString();
          });
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      request.on("error", reject);
      request.end();
    });
    expect(answer.status).toBe(421);
    expect(JSON.parse(answer.body).error.code).toBe("bad_host");
  });

  it("after all of them the session still works, and the token was never logged", async () => {
    expect((await sendAndWait(session.id, "[[reply still fine]]")).data).toMatchObject({
      outcome: "completed",
      text: "still fine",
    });
    const metrics = await call("GET", "/metrics");
    expect(metrics.text).toMatch(/ocb_turns_total\{outcome="completed"\} [1-9]/);
    expect(metrics.text).toMatch(/ocb_open_sessions [1-9]/);
    const logged = JSON.stringify(logger.entries);
    expect(logged).toContain('"status":400');
    expect(logged).toContain("turn ended");
    expect(logged).not.toContain(TOKEN);
  });
});
