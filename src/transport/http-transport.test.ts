/**
 * The HTTP transport against a local server the test controls (for the wire details that a
 * real OpenCode cannot be made to produce on demand: hangs, resets, malformed bodies).
 * The end-to-end behaviour against the real binary is in test/e2e.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  AbortError,
  ConnectionError,
  OpencodeApiError,
  ProtocolError,
  TimeoutError,
} from "../errors.js";
import { HttpTransport } from "./http-transport.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server | undefined;
const seen: Seen[] = [];

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<string> {
  seen.length = 0;
  const created = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      handler(req, res);
    });
  });
  server = created;
  await new Promise<void>((resolve) => created.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(created.address() as AddressInfo).port}`;
}

async function stopServer(): Promise<void> {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
}

afterEach(stopServer);

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
};

describe("HttpTransport.request", () => {
  it("fills path, query, location header, auth and a strict JSON body", async () => {
    const url = await serve((_req, res) => json(res, 200, { data: { admittedSeq: 1 } }));
    const transport = new HttpTransport({ url, password: "s3cret" });
    const result = await transport.request({
      operation: "v2.session.prompt",
      input: { sessionID: "ses a/b", prompt: { text: "hi" }, delivery: "queue" },
      directory: "/tmp/with space/ü",
    });
    expect(result).toEqual({ data: { admittedSeq: 1 } }); // bodies come back as sent
    const request = seen[0];
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("/api/session/ses%20a%2Fb/prompt");
    expect(request?.headers["x-opencode-directory"]).toBe(encodeURIComponent("/tmp/with space/ü"));
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from("opencode:s3cret").toString("base64")}`,
    );
    expect(JSON.parse(request?.body ?? "")).toEqual({ prompt: { text: "hi" }, delivery: "queue" });
  });

  it("puts query fields in the query and sends no body on GET", async () => {
    const url = await serve((_req, res) => json(res, 200, { data: [] }));
    const transport = new HttpTransport({ url });
    await transport.request({ operation: "v2.model.list", directory: "/w" });
    await transport.request({ operation: "session.messages", input: { sessionID: "s", limit: 5 } });
    expect(seen[0]?.url).toBe(`/api/model?${new URLSearchParams({ "location[directory]": "/w" })}`);
    expect(seen[1]?.url).toBe("/session/s/message?limit=5");
    expect(seen[1]?.body).toBe("");
    expect(seen[1]?.headers.authorization).toBeUndefined();
  });

  it("answers 204 with undefined and leaves legacy bodies unwrapped", async () => {
    const url = await serve((req, res) =>
      req.url?.endsWith("/prompt_async") ? res.writeHead(204).end() : json(res, 200, { id: "x" }),
    );
    const transport = new HttpTransport({ url });
    const none = await transport.request({
      operation: "session.prompt_async",
      input: { sessionID: "s", parts: [] },
    });
    expect(none).toBeUndefined();
    expect(
      await transport.request({ operation: "session.get", input: { sessionID: "s" } }),
    ).toEqual({ id: "x" });
  });

  it("turns a non-JSON success body into a ProtocolError", async () => {
    const url = await serve((_req, res) => res.writeHead(200).end("<html>proxy</html>"));
    await expect(
      new HttpTransport({ url }).request({ operation: "config.get" }),
    ).rejects.toBeInstanceOf(ProtocolError);
  });

  it.each([
    [{ name: "NotFoundError", data: { message: "Session not found: s" } }, "NotFoundError"],
    [{ _tag: "SessionNotFoundError", message: "Session not found: s" }, "SessionNotFoundError"],
  ])("reads OpenCode's error shapes into OpencodeApiError (%j)", async (body, name) => {
    const url = await serve((_req, res) => json(res, 404, body));
    const error = await new HttpTransport({ url })
      .request({ operation: "session.get", input: { sessionID: "s" } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpencodeApiError);
    expect(error).toMatchObject({
      status: 404,
      errorName: name,
      retryable: false,
      body,
      url: `${url}/session/s`,
    });
    expect((error as Error).message).toContain("Session not found: s");
  });

  it("marks 5xx as retryable", async () => {
    const url = await serve((_req, res) => res.writeHead(503).end());
    await expect(
      new HttpTransport({ url }).request({ operation: "config.get" }),
    ).rejects.toMatchObject({ status: 503, retryable: true, errorName: "HTTP 503" });
  });

  it("bounds a call that never answers with a TimeoutError", async () => {
    const url = await serve(() => {});
    const error = await new HttpTransport({ url, timeoutMs: 150 })
      .request({ operation: "config.get" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(150);
  });

  it("stops at once on the caller's abort with an AbortError", async () => {
    const url = await serve(() => {});
    const controller = new AbortController();
    const pending = new HttpTransport({ url }).request(
      { operation: "config.get" },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });

  it("reports an unreachable server as a ConnectionError with the cause", async () => {
    const url = await serve(() => {});
    await stopServer();
    const error = await new HttpTransport({ url })
      .request({ operation: "config.get" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).cause).toBeDefined();
  });

  it("refuses an operation it has no route for", async () => {
    const url = await serve((_req, res) => json(res, 200, {}));
    await expect(
      new HttpTransport({ url }).request({ operation: "session.instructions.entry.put" }),
    ).rejects.toThrow(/no HTTP route for OpenCode 1.18.33/);
    expect(seen).toHaveLength(0);
  });

  it("refuses an input that lacks a path parameter before sending", async () => {
    const url = await serve((_req, res) => json(res, 200, {}));
    await expect(
      new HttpTransport({ url }).request({ operation: "session.get", input: {} }),
    ).rejects.toThrow(/needs a non-empty string "sessionID"/);
    expect(seen).toHaveLength(0);
  });
});

describe("HttpTransport.stream", () => {
  it("asks for the call once per connect and yields parsed frames across a reconnect", async () => {
    let connects = 0;
    const url = await serve((_req, res) => {
      connects++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: {"type":"tick","n":${connects}}\n\n`);
    });
    const transport = new HttpTransport({ url });
    let asked = 0;
    const frames: unknown[] = [];
    for await (const frame of transport.stream(() => {
      asked++;
      return { operation: "event.subscribe", directory: "/w" };
    })) {
      frames.push(frame);
      if (frames.length === 2) break;
    }
    expect(frames).toEqual([
      { type: "tick", n: 1 },
      { type: "tick", n: 2 },
    ]);
    expect(asked).toBe(2);
    expect(seen.map((request) => request.headers["x-opencode-directory"])).toEqual([
      encodeURIComponent("/w"),
      encodeURIComponent("/w"),
    ]);
  });

  it("gives up a connection whose headers do not come within connectTimeoutMs, whatever the idle bound", async () => {
    // The first connection is taken and never answered (a server still starting); the next is.
    let connects = 0;
    const url = await serve((_req, res) => {
      connects++;
      if (connects === 1) return;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('data: {"type":"tick"}\n\n');
    });
    const stream = new HttpTransport({ url }).stream(() => ({ operation: "event.subscribe" }), {
      idleTimeoutMs: 60_000,
      connectTimeoutMs: 100,
    });
    for await (const frame of stream) {
      expect(frame).toEqual({ type: "tick" });
      break;
    }
    expect(connects).toBe(2);
  });

  it("keeps a frame that is not JSON as an `unparsed` frame, and the stream goes on", async () => {
    // Found by the reliability fuzzer: a truncated frame threw, ending the session's stream.
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('data: {"type":"tick","n":\n\ndata: {"type":"tock"}\n\n');
    });
    const frames: unknown[] = [];
    for await (const frame of new HttpTransport({ url }).stream(() => ({
      operation: "event.subscribe",
    }))) {
      frames.push(frame);
      if (frames.length === 2) break;
    }
    expect(frames).toEqual([
      {
        type: "unparsed",
        data: '{"type":"tick","n":',
        error: expect.stringMatching(/^not JSON: /),
      },
      { type: "tock" },
    ]);
  });
});
