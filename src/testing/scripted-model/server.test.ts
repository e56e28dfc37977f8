import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { trackTimers } from "../../../test/support/timer-tracker.js";
import { AbortError, TimeoutError } from "../../errors.js";
import { type ScriptedModel, startScriptedModel } from "./server.js";

interface Chunk {
  object?: string;
  choices: {
    delta: {
      role?: string;
      content?: string | null;
      reasoning_content?: string;
      tool_calls?: {
        index: number;
        id?: string;
        type?: string;
        function: { name?: string; arguments?: string };
      }[];
    };
    finish_reason: string | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

interface Stream {
  chunks: Chunk[];
  done: boolean;
  text: string;
  reasoning: string;
  finishReason: string | null | undefined;
}

const bashTool = { type: "function", function: { name: "bash", parameters: { type: "object" } } };
const writeTool = { type: "function", function: { name: "write", parameters: { type: "object" } } };

let model: ScriptedModel | undefined;

afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function start(
  options: Parameters<typeof startScriptedModel>[0] = {},
): Promise<ScriptedModel> {
  model = await startScriptedModel(options);
  return model;
}

function post(body: unknown, init: RequestInit = {}): Promise<Response> {
  if (!model) throw new Error("start the model first");
  return fetch(`${model.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ...init,
  });
}

/** Posts a streamed chat request and parses the SSE answer. */
async function chat(messages: unknown[], tools: unknown[] = []): Promise<Stream> {
  const response = await post({ model: "demo-1", messages, tools, stream: true });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  return parseSse(await response.text());
}

function parseSse(body: string): Stream {
  const events = body.split("\n\n").filter((event) => event !== "");
  for (const event of events) expect(event.startsWith("data: ")).toBe(true);
  const data = events.map((event) => event.slice("data: ".length));
  const done = data.at(-1) === "[DONE]";
  const chunks = data.filter((line) => line !== "[DONE]").map((line) => JSON.parse(line) as Chunk);
  const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
  return {
    chunks,
    done,
    text: deltas.map((delta) => delta.content ?? "").join(""),
    reasoning: deltas.map((delta) => delta.reasoning_content ?? "").join(""),
    finishReason: chunks.flatMap((chunk) => chunk.choices).find((c) => c.finish_reason !== null)
      ?.finish_reason,
  };
}

const user = (content: unknown) => ({ role: "user", content });

describe("scripted model: replies", () => {
  it("echoes the user text in several chunks and ends with usage and [DONE]", async () => {
    await start();
    const stream = await chat([
      { role: "system", content: "[[reply no]]" },
      user("hello big world"),
    ]);
    expect(stream.text).toBe("echo: hello big world");
    const contentChunks = stream.chunks.filter((c) => c.choices[0]?.delta.content);
    expect(contentChunks.length).toBeGreaterThan(1);
    expect(stream.finishReason).toBe("stop");
    expect(stream.done).toBe(true);
    const last = stream.chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(last?.usage?.total_tokens).toBe(
      (last?.usage?.prompt_tokens ?? 0) + (last?.usage?.completion_tokens ?? 0),
    );
  });

  it("uses defaultReply instead of the echo when given", async () => {
    await start({ defaultReply: "I am a script." });
    expect((await chat([user("anything")])).text).toBe("I am a script.");
  });

  it("replies exactly the [[reply]] text, reading text parts of array content", async () => {
    await start();
    const stream = await chat([
      user("[[reply first]]"),
      { role: "assistant", content: "first" },
      user([
        { type: "text", text: "please" },
        { type: "text", text: "[[reply Hello,  world! ]]" },
      ]),
    ]);
    expect(stream.text).toBe("Hello,  world!");
  });

  it("streams N slow tokens, one per chunk", async () => {
    await start();
    const stream = await chat([user("[[slow 4 5]]")]);
    const tokens = stream.chunks.map((c) => c.choices[0]?.delta.content).filter((t) => t);
    expect(tokens).toEqual(["tok1", " tok2", " tok3", " tok4"]);
    expect(stream.text).toBe("tok1 tok2 tok3 tok4");
  });

  it("streams reasoning_content before the reply", async () => {
    await start();
    const stream = await chat([user("[[reasoning let me think]] hello")]);
    expect(stream.reasoning).toBe("let me think");
    expect(stream.text).toBe("echo: hello");
    const firstReasoning = stream.chunks.findIndex((c) => c.choices[0]?.delta.reasoning_content);
    const firstContent = stream.chunks.findIndex((c) => c.choices[0]?.delta.content);
    expect(firstReasoning).toBeGreaterThan(-1);
    expect(firstReasoning).toBeLessThan(firstContent);
  });

  it("streams reply, reasoning and tool arguments in [[chunks N]], cut between code points", async () => {
    await start();
    const text = "漢字👍🏽e\u0301";
    const stream = await chat(
      [user(`[[chunks 4]] [[reasoning ${text}]] [[tool bash {"command":"echo ${text}"}]]`)],
      [bashTool],
    );
    const reasoning = stream.chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? "");
    expect(reasoning.filter((piece) => piece !== "")).toEqual(["漢", "字👍", "🏽", "e\u0301"]);
    const calls = stream.chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    const pieces = calls.slice(1).map((call) => call.function.arguments ?? "");
    expect(pieces).toHaveLength(4);
    expect(pieces.join("")).toBe(JSON.stringify({ command: `echo ${text}` }));
    const replied = await chat([user(`[[chunks 10]] [[reply ${text}]]`)]);
    const content = replied.chunks.map((c) => c.choices[0]?.delta.content ?? "");
    expect(content.filter((piece) => piece !== "")).toEqual(Array.from(text));
  });

  it("answers stream: false with a chat.completion object", async () => {
    await start();
    const response = await post({
      messages: [user("[[reasoning hmm]] [[reply plain]]")],
      stream: false,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "demo-1",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "plain", reasoning_content: "hmm" },
          finish_reason: "stop",
        },
      ],
    });
    expect(body.usage).toMatchObject({ prompt_tokens: expect.any(Number) });
  });
});

describe("scripted model: tools", () => {
  it("calls a tool, then answers the tool result", async () => {
    await start();
    const prompt = user('[[tool bash {"command":"echo hi","description":"say hi"}]]');
    const first = await chat([prompt], [bashTool]);
    expect(first.finishReason).toBe("tool_calls");
    expect(first.text).toBe("");
    const calls = first.chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls.length).toBeGreaterThan(2); // the name chunk, then the arguments in pieces
    expect(calls[0]).toMatchObject({ index: 0, id: "call_1", type: "function" });
    expect(calls[0]?.function.name).toBe("bash");
    const args = calls.map((call) => call.function.arguments ?? "").join("");
    expect(JSON.parse(args)).toEqual({ command: "echo hi", description: "say hi" });

    const second = await chat(
      [
        prompt,
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "bash", arguments: args } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "hi\n" },
      ],
      [bashTool],
    );
    expect(second.finishReason).toBe("stop");
    expect(second.text).toBe("tool bash returned: hi\n");
  });

  it("chains tools in order and ends with [[then]]", async () => {
    await start();
    const prompt = user(
      '[[tool write {"filePath":"a.txt","content":"x"}]] [[tool bash {"command":"cat a.txt"}]] [[then all done]]',
    );
    const toolCall = (stream: Stream) => {
      const calls = stream.chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
      return {
        id: calls[0]?.id,
        name: calls[0]?.function.name,
        args: JSON.parse(calls.map((c) => c.function.arguments ?? "").join("")) as unknown,
      };
    };
    const assistantCall = (id: string, name: string) => ({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }],
    });

    const first = toolCall(await chat([prompt], [bashTool, writeTool]));
    expect(first).toEqual({
      id: "call_1",
      name: "write",
      args: { filePath: "a.txt", content: "x" },
    });

    const afterWrite = [
      prompt,
      assistantCall("call_1", "write"),
      { role: "tool", tool_call_id: "call_1", content: "Wrote file successfully." },
    ];
    const second = toolCall(await chat(afterWrite, [bashTool, writeTool]));
    expect(second).toEqual({ id: "call_2", name: "bash", args: { command: "cat a.txt" } });

    const afterBash = [
      ...afterWrite,
      assistantCall("call_2", "bash"),
      { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "x" }] },
    ];
    const last = await chat(afterBash, [bashTool, writeTool]);
    expect(last.finishReason).toBe("stop");
    expect(last.text).toBe("all done");
  });

  it("quotes at most 200 characters of a long tool result", async () => {
    await start();
    const stream = await chat(
      [
        user("[[tool bash]]"),
        {
          role: "assistant",
          tool_calls: [{ id: "call_9", function: { name: "bash", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "call_9", content: "y".repeat(500) },
      ],
      [bashTool],
    );
    expect(stream.text).toBe(`tool bash returned: ${"y".repeat(200)}`);
  });

  it("skips tool calls when the request offers no tools (OpenCode's title request)", async () => {
    await start();
    const stream = await chat([user("[[tool bash {}]] [[then A title]]")]);
    expect(stream.finishReason).toBe("stop");
    expect(stream.text).toBe("A title");
  });
});

describe("scripted model: errors and hangs", () => {
  it("answers [[error]] with the status and body", async () => {
    await start();
    const custom = await post({
      messages: [user('[[error 429 {"error":{"message":"slow down"}}]]')],
    });
    expect(custom.status).toBe(429);
    expect(await custom.json()).toEqual({ error: { message: "slow down" } });

    const plain = await post({ messages: [user("[[error 500]]")], stream: true });
    expect(plain.status).toBe(500);
    expect(await plain.json()).toEqual({
      error: { message: "scripted provider error", type: "server_error" },
    });

    const client = await post({ messages: [user("[[error 404]]")] });
    expect(client.status).toBe(404);
    expect(await client.json()).toEqual({
      error: { message: "scripted provider error", type: "invalid_request_error" },
    });
  });

  it("fails only N identical requests with [[error … times=N]]", async () => {
    await start();
    const body = { messages: [user("[[error 503 times=2]] hi")], stream: true };
    expect((await post(body)).status).toBe(503);
    expect((await post(body)).status).toBe(503);
    const third = await post(body);
    expect(third.status).toBe(200);
    expect(parseSse(await third.text()).text).toBe("echo: hi");
  });

  it("answers a malformed directive with 400 and says what is wrong", async () => {
    await start();
    const response = await post({ messages: [user("[[slow many]]")] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string } };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("[[slow many]]");
  });

  it("keeps a [[hang]] request pending until the client aborts it", async () => {
    const server = await start();
    const controller = new AbortController();
    let settled = false;
    const pending = post(
      { messages: [user("[[hang]]")], stream: true },
      { signal: controller.signal },
    );
    void pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    await server.waitForRequests(1);
    await delay(50);
    expect(settled).toBe(false);
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    await server.close();
  });

  it("cuts a hung request when it closes", async () => {
    const server = await start();
    const pending = post({ messages: [user("[[hang]]")], stream: true });
    await server.waitForRequests(1);
    await server.close();
    await expect(pending).rejects.toThrow();
  });

  it("answers unknown paths with 404 and bad JSON with 400", async () => {
    const server = await start();
    const missing = await fetch(`${server.url}/embeddings`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: "not_found_error" } });

    const badJson = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: '{"messages": [',
    });
    expect(badJson.status).toBe(400);
    const badJsonBody = (await badJson.json()) as { error: { message: string } };
    expect(badJsonBody.error.message).toMatch(/not valid JSON/);

    const noMessages = await post({ model: "demo-1" });
    expect(noMessages.status).toBe(400);
    const noMessagesBody = (await noMessages.json()) as { error: { message: string } };
    expect(noMessagesBody.error.message).toContain("messages");

    expect(server.requests.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/v1/embeddings"],
      ["POST", "/v1/chat/completions"],
      ["POST", "/v1/chat/completions"],
    ]);
    expect(server.requests[1]?.body).toBe('{"messages": [');
  });

  it("lists its models", async () => {
    const server = await start();
    const response = await fetch(`${server.url}/models`);
    expect(await response.json()).toEqual({
      object: "list",
      data: [
        { id: "demo-1", object: "model", owned_by: "scripted" },
        { id: "demo-2", object: "model", owned_by: "scripted" },
      ],
    });
  });
});

describe("scripted model: recording", () => {
  it("records messages, tools, the last user text and attachments", async () => {
    const server = await start();
    const image = "data:image/png;base64,iVBORw0KGgo=";
    await chat(
      [
        { role: "system", content: "You are opencode." },
        user([
          { type: "text", text: "what is in" },
          { type: "text", text: "this picture?" },
          { type: "image_url", image_url: { url: image } },
          {
            type: "file",
            file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBE" },
          },
        ]),
      ],
      [bashTool, writeTool],
    );
    const [recorded] = await server.waitForRequests(1);
    expect(recorded).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      model: "demo-1",
      stream: true,
      tools: ["bash", "write"],
      lastUserText: "what is in\nthis picture?",
      attachments: [
        { type: "image_url", url: image, mime: "image/png" },
        {
          type: "file",
          url: "data:application/pdf;base64,JVBE",
          mime: "application/pdf",
          filename: "a.pdf",
        },
      ],
    });
    expect(recorded?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(recorded?.at).toBeGreaterThan(0);
  });

  it("waitForRequests resolves once enough requests arrived", async () => {
    const server = await start();
    const waiting = server.waitForRequests(2);
    await chat([user("one")]);
    expect(server.requests).toHaveLength(1);
    await chat([user("two")]);
    const requests = await waiting;
    expect(requests.map((r) => r.lastUserText)).toEqual(["one", "two"]);
  });

  it("keeps only the latest keepRequests requests, and counts them all", async () => {
    const server = await start({ keepRequests: 2 });
    const waiting = server.waitForRequests(3);
    for (const text of ["one", "two", "three"]) await chat([user(text)]);
    expect(server.requests.map((r) => r.lastUserText)).toEqual(["two", "three"]);
    expect(server.received).toBe(3);
    expect((await waiting).map((r) => r.lastUserText)).toEqual(["two", "three"]);
  });

  it("waitForRequests times out, aborts, and gives up when the server closes", async () => {
    const server = await start();
    await expect(server.waitForRequests(1, { timeoutMs: 20 })).rejects.toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    const aborted = server.waitForRequests(1, { signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(AbortError);
    const cut = server.waitForRequests(1);
    await server.close();
    await expect(cut).rejects.toBeInstanceOf(AbortError);
  });
});

describe("scripted model: close", () => {
  it("leaves no server, socket or timer behind, even mid-stream", async () => {
    const countResources = () => {
      const counts = new Map<string, number>();
      for (const name of process.getActiveResourcesInfo())
        counts.set(name, (counts.get(name) ?? 0) + 1);
      return counts;
    };
    // Servers closed by earlier tests release their handles a moment after close() resolves.
    await vi.waitFor(() => expect(countResources().get("TCPServerWrap")).toBeUndefined());
    const before = countResources();
    const timers = trackTimers(/src[\\/]testing[\\/]scripted-model[\\/]/);
    onTestFinished(() => timers.dispose());
    const server = await start();
    // A finished keep-alive exchange, a hung request and a slow stream still running.
    await chat([user("warm up")]);
    const hung = post({ messages: [user("[[hang]]")], stream: true }).catch(() => "cut");
    const slow = post({ messages: [user("[[slow 1000 50]]")], stream: true })
      .then((response) => response.text())
      .catch(() => "cut");
    await server.waitForRequests(3);
    expect(countResources().get("TCPServerWrap")).toBe(1);
    await vi.waitFor(() => expect(timers.live()).toBeGreaterThan(0)); // the slow stream's

    await server.close();
    await expect(hung).resolves.toBe("cut");
    await expect(slow).resolves.not.toContain("tok1000");
    await vi.waitFor(() => {
      const after = countResources();
      for (const name of ["TCPServerWrap", "TCPSocketWrap"]) {
        expect([name, after.get(name) ?? 0]).toEqual([name, before.get(name) ?? 0]);
      }
    });
    await timers.settled();
    await expect(fetch(`${server.url}/models`)).rejects.toThrow();
    await server.close(); // a second close is harmless
  });
});
