import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ConnectionError, OpencodeApiError, UsageError } from "../errors.js";
import { attachOpencode } from "./attach-opencode.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A stand-in health route that wants `opencode:pw` (the real server: start-opencode.real.int.test.ts). */
async function serveHealth(): Promise<string> {
  const expected = `Basic ${Buffer.from("opencode:pw").toString("base64")}`;
  server = createServer((request, response) => {
    if (request.headers.authorization !== expected) {
      response.statusCode = 401;
      response.end("Unauthorized");
      return;
    }
    response.end('{"healthy":true,"version":"1.18.33"}');
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("attachOpencode", () => {
  it("returns a handle without a process; close() ends only the handle", async () => {
    const url = await serveHealth();
    const handle = await attachOpencode(`${url}/`, { password: "pw" });
    expect(handle).toMatchObject({
      url,
      username: "opencode",
      password: "pw",
      version: "1.18.33",
      pid: undefined,
    });
    expect(handle.logTail()).toEqual([]);
    await handle.close();
    await handle.close();
    await expect(handle.exited).resolves.toEqual({
      code: null,
      signal: null,
      logTail: [],
      expected: true,
    });
    // The server itself is untouched.
    const response = await fetch(`${url}/global/health`, {
      headers: { authorization: `Basic ${Buffer.from("opencode:pw").toString("base64")}` },
    });
    expect(response.status).toBe(200);
  });

  it("rejects wrong credentials with a 401 OpencodeApiError", async () => {
    const url = await serveHealth();
    await expect(attachOpencode(url, { password: "wrong" })).rejects.toBeInstanceOf(
      OpencodeApiError,
    );
    await expect(attachOpencode(url)).rejects.toMatchObject({ status: 401 });
  });

  it("reports an unreachable server and a URL that is not http", async () => {
    const url = await serveHealth();
    server?.close();
    await expect(attachOpencode(url, { timeoutMs: 1000 })).rejects.toBeInstanceOf(ConnectionError);
    await expect(attachOpencode("ftp://example.com")).rejects.toBeInstanceOf(UsageError);
    await expect(attachOpencode("not a url")).rejects.toBeInstanceOf(UsageError);
  });
});
