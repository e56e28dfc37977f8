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
import { basicAuthHeader, probeHealth, waitForHealth } from "./health.js";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A stand-in health route (the real server's answers are covered in start-opencode.real.int.test.ts). */
async function serve(handler: Handler): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const healthy: Handler = (_request, response) => {
  response.setHeader("content-type", "application/json");
  response.end('{"healthy":true,"version":"1.18.33","extra":1}');
};

describe("probeHealth", () => {
  it("sends Basic auth and reads healthy and version", async () => {
    let authorization: string | undefined;
    const url = await serve((request, response) => {
      authorization = request.headers.authorization;
      healthy(request, response);
    });
    const header = basicAuthHeader("opencode", "pw");
    expect(await probeHealth(url, { authorization: header, timeoutMs: 1000 })).toEqual({
      healthy: true,
      version: "1.18.33",
    });
    expect(authorization).toBe(`Basic ${Buffer.from("opencode:pw").toString("base64")}`);
  });

  it("turns 401 into OpencodeApiError", async () => {
    const url = await serve((_request, response) => {
      response.statusCode = 401;
      response.end("Unauthorized");
    });
    const error = await probeHealth(url, { timeoutMs: 1000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpencodeApiError);
    expect(error).toMatchObject({ status: 401, retryable: false });
  });

  it("bounds an attempt that gets no answer", async () => {
    const url = await serve(() => {});
    const startedAt = Date.now();
    await expect(probeHealth(url, { timeoutMs: 200 })).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - startedAt).toBeLessThan(2000);
  });

  it("reports a refused connection and a malformed body", async () => {
    const url = await serve((_request, response) => response.end('{"ok":1}'));
    await expect(probeHealth(url, { timeoutMs: 1000 })).rejects.toBeInstanceOf(ProtocolError);
    const closed = await serve(healthy);
    const server = servers.pop();
    server?.close();
    await expect(probeHealth(closed, { timeoutMs: 1000 })).rejects.toBeInstanceOf(ConnectionError);
  });

  it("turns the caller's abort into AbortError", async () => {
    const url = await serve(() => {});
    const controller = new AbortController();
    const probe = probeHealth(url, { timeoutMs: 5000, signal: controller.signal });
    controller.abort();
    await expect(probe).rejects.toBeInstanceOf(AbortError);
  });
});

describe("waitForHealth", () => {
  it("retries hung attempts, 503 and healthy: false until the server is healthy", async () => {
    let calls = 0;
    const url = await serve((request, response) => {
      calls += 1;
      if (calls === 1) return; // hangs
      if (calls === 2) {
        response.statusCode = 503;
        response.end("starting");
        return;
      }
      if (calls === 3) {
        response.end('{"healthy":false}');
        return;
      }
      healthy(request, response);
    });
    const failures: unknown[] = [];
    const status = await waitForHealth(url, {
      signal: AbortSignal.timeout(5000),
      attemptTimeoutMs: 200,
      retryDelayMs: 10,
      onAttemptFailed: (error) => failures.push(error),
    });
    expect(status.healthy).toBe(true);
    expect(failures).toHaveLength(3);
    expect(failures[0]).toBeInstanceOf(TimeoutError);
  });

  it("gives up at once on a 401", async () => {
    const url = await serve((_request, response) => {
      response.statusCode = 401;
      response.end();
    });
    await expect(waitForHealth(url, { signal: AbortSignal.timeout(5000) })).rejects.toMatchObject({
      status: 401,
    });
  });
});
