/**
 * The client's HTTP side with a `fetch` written in the test: the token, answers checked
 * against the protocol's schemas, error bodies as `BridgeApiError`, bounds and aborts, and
 * `send`'s idempotency key with its one retry after a network failure.
 */
import { describe, expect, it } from "vitest";
import { BridgeClient } from "./bridge-client.js";
import {
  BridgeAbortError,
  BridgeApiError,
  BridgeClientError,
  BridgeConnectionError,
  BridgeProtocolError,
  BridgeTimeoutError,
} from "./errors.js";
import type { FetchLike } from "./http-caller.js";

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

const TOKEN = "tok-very-secret";
const SESSION = {
  id: "ses_1",
  directory: "/tmp/x",
  backend: "serve",
  open: true,
  state: "open",
  running: false,
  lastSeq: 0,
};

/** A fetch answering from `answer`, recording each request. */
function fakeFetch(answer: (seen: Seen, call: number) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fetch: FetchLike = async (url, init) => {
    const entry: Seen = {
      url,
      method: init.method ?? "GET",
      headers: init.headers as Record<string, string>,
      body: typeof init.body === "string" ? JSON.parse(init.body) : init.body,
    };
    seen.push(entry);
    return answer(entry, seen.length);
  };
  return { fetch, seen };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const client = (fetch: FetchLike, timeoutMs?: number) =>
  new BridgeClient({
    url: "http://127.0.0.1:4097",
    token: TOKEN,
    fetch,
    ...(timeoutMs !== undefined && { timeoutMs }),
  });

describe("BridgeClient over HTTP", () => {
  it("sends the token as a Bearer header and returns the checked answer", async () => {
    const { fetch, seen } = fakeFetch(() => json(201, { ...SESSION, extra: "kept" }));
    const info = await client(fetch).createSession({ title: "t" });
    expect(info).toMatchObject({ id: "ses_1", lastSeq: 0 });
    expect(seen[0]).toMatchObject({
      url: "http://127.0.0.1:4097/v1/sessions",
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: { title: "t" },
    });
  });

  it("puts ids in the path escaped", async () => {
    const { fetch, seen } = fakeFetch(() => json(200, { ok: true }));
    await client(fetch).replyPermission("ses/1", "per 2", "reject", { message: "no" });
    expect(seen[0]?.url).toBe("http://127.0.0.1:4097/v1/sessions/ses%2F1/permissions/per%202");
    expect(seen[0]?.body).toEqual({ reply: "reject", message: "no" });
  });

  it("turns the error body into a BridgeApiError with status, code, message and details", async () => {
    const { fetch } = fakeFetch(() =>
      json(400, {
        error: {
          code: "invalid_request",
          message: "text: required",
          details: [{ path: ["text"] }],
        },
      }),
    );
    const error = await client(fetch)
      .send("ses_1", { text: "", delivery: "queue" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BridgeApiError);
    expect(error).toMatchObject({
      status: 400,
      code: "invalid_request",
      details: [{ path: ["text"] }],
      retryable: false,
    });
    expect((error as Error).message).toContain("text: required");
  });

  it("an error without the JSON body still says the status and what came", async () => {
    const { fetch } = fakeFetch(() => new Response("Bad Gateway", { status: 502 }));
    await expect(client(fetch).health()).rejects.toMatchObject({
      status: 502,
      code: "http_502",
      message: expect.stringContaining("Bad Gateway"),
      retryable: true,
    });
  });

  it("an answer that does not fit the schema is a BridgeProtocolError naming the field", async () => {
    const { fetch } = fakeFetch(() => json(200, { ...SESSION, lastSeq: "many" }));
    const error = await client(fetch)
      .getSession("ses_1")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BridgeProtocolError);
    expect((error as Error).message).toContain("lastSeq");
  });

  it("a call that hangs ends at its bound (BridgeTimeoutError), an aborted one at once", async () => {
    const hang: FetchLike = (_url, init) =>
      new Promise((_, reject) =>
        init.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
      );
    await expect(client(hang, 30).listSessions()).rejects.toBeInstanceOf(BridgeTimeoutError);
    await expect(client(hang).listSessions({ timeoutMs: 20 })).rejects.toMatchObject({
      timeoutMs: 20,
    });
    const abort = new AbortController();
    const call = client(hang).models({ signal: abort.signal });
    abort.abort();
    await expect(call).rejects.toBeInstanceOf(BridgeAbortError);
  });

  it("a network failure is a BridgeConnectionError that does not show the token", async () => {
    const { fetch } = fakeFetch(() => {
      throw new TypeError("fetch failed");
    });
    const error = await client(fetch)
      .listSessions()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BridgeConnectionError);
    expect(String((error as Error).message)).not.toContain(TOKEN);
  });

  it("reads the transcript's NDJSON into checked canonical events", async () => {
    const event = {
      id: "e1",
      seq: 1,
      sessionId: "ses_1",
      at: 1,
      type: "session.created",
      durable: true,
      data: {},
    };
    const { fetch, seen } = fakeFetch(
      () => new Response(`${JSON.stringify(event)}\n`, { status: 200 }),
    );
    expect(await client(fetch).transcript("ses_1", { after: 0 })).toEqual([event]);
    expect(seen[0]?.url).toContain("/v1/sessions/ses_1/transcript?after=0");
  });

  it("refuses a bad URL or a missing token, saying what it wants", () => {
    expect(() => new BridgeClient({ url: "localhost:4097", token: TOKEN })).toThrow(/http\(s\)/);
    expect(() => new BridgeClient({ url: "http://127.0.0.1:1", token: "" })).toThrow(
      /token is required/,
    );
  });
});

describe("send", () => {
  const admitted = () => json(202, { inputId: "inp_1", turnId: "trn_1" });

  it("generates an idempotency key when none is given, and returns it", async () => {
    const { fetch, seen } = fakeFetch(admitted);
    const result = await client(fetch).send("ses_1", { text: "hi", delivery: "queue" });
    const body = seen[0]?.body as { idempotencyKey: string; text: string; delivery: string };
    expect(body).toMatchObject({ text: "hi", delivery: "queue" });
    expect(body.idempotencyKey).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(result).toEqual({
      inputId: "inp_1",
      turnId: "trn_1",
      idempotencyKey: body.idempotencyKey,
    });
    const again = await client(fetch).send("ses_1", { text: "hi", delivery: "queue" });
    expect(again.idempotencyKey).not.toBe(body.idempotencyKey);
  });

  it("retries once after a network failure, with the same key", async () => {
    const { fetch, seen } = fakeFetch((_, call) => {
      if (call === 1) throw new TypeError("fetch failed: socket hang up");
      return admitted();
    });
    const result = await client(fetch).send("ses_1", {
      text: "hi",
      delivery: "steer",
      idempotencyKey: "key-1",
    });
    expect(result.turnId).toBe("trn_1");
    expect(seen.map((entry) => (entry.body as { idempotencyKey: string }).idempotencyKey)).toEqual([
      "key-1",
      "key-1",
    ]);
  });

  it("retries only once, and never after a refusal", async () => {
    const down = fakeFetch(() => {
      throw new TypeError("fetch failed");
    });
    await expect(
      client(down.fetch).send("ses_1", { text: "x", delivery: "queue" }),
    ).rejects.toBeInstanceOf(BridgeConnectionError);
    expect(down.seen).toHaveLength(2);
    const refused = fakeFetch(() => json(404, { error: { code: "not_found", message: "no" } }));
    await expect(
      client(refused.fetch).send("ses_1", { text: "x", delivery: "queue" }),
    ).rejects.toMatchObject({ code: "not_found" });
    expect(refused.seen).toHaveLength(1);
  });

  it("uploads Blob attachments as multipart, with the key as a field", async () => {
    const { fetch, seen } = fakeFetch(admitted);
    await client(fetch).send("ses_1", {
      text: "look",
      delivery: "queue",
      idempotencyKey: "key-2",
      attachments: [
        { name: "dot.png", blob: new Blob([new Uint8Array([1, 2])], { type: "image/png" }) },
      ],
    });
    const form = seen[0]?.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect(form.get("text")).toBe("look");
    expect(form.get("idempotencyKey")).toBe("key-2");
    expect((form.get("files") as File).name).toBe("dot.png");
    expect(seen[0]?.headers["content-type"]).toBeUndefined();
  });

  it("refuses uploads mixed with path attachments", async () => {
    const { fetch, seen } = fakeFetch(admitted);
    await expect(
      client(fetch).send("ses_1", {
        text: "x",
        delivery: "queue",
        attachments: [{ path: "a.png" }, { name: "b.png", blob: new Blob(["b"]) }],
      }),
    ).rejects.toBeInstanceOf(BridgeClientError);
    expect(seen).toHaveLength(0);
  });
});
