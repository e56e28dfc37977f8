/**
 * Requests received too slowly: a body trickled past the receive timeout (which Node does not
 * bound once a route has the request) and headers trickled past it are both answered 408
 * `request_timeout` in the API's error shape, and their connections closed; a request sent at
 * once is not disturbed by the bound.
 */
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  JSON_HEADERS,
  type SidecarHarness,
  sidecarHarness,
} from "../../test/support/sidecar-harness.js";
import { within } from "../../test/support/within.js";

let harness: SidecarHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function listening(receiveTimeoutMs: number): Promise<number> {
  harness = sidecarHarness({ limits: { receiveTimeoutMs } });
  await harness.app.listen({ host: "127.0.0.1", port: 0 });
  const address = harness.app.server.address();
  if (address === null || typeof address === "string") throw new Error("not listening");
  harness.ctx.address.port = address.port;
  return address.port;
}

/** Writes `head`, then `trickle` a byte every 50 ms; resolves with what came back before the close. */
function trickled(port: number, head: string, trickle: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      answer += chunk;
    });
    socket.on("error", () => {});
    let at = 0;
    const ticker = setInterval(() => {
      if (at < trickle.length && !socket.destroyed) socket.write(trickle.charAt(at++));
    }, 50);
    socket.on("close", () => {
      clearInterval(ticker);
      resolve(answer);
    });
    socket.write(head);
  });
}

function errorOf(answer: string): { status: string; code: unknown } {
  const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? answer.slice(0, 40);
  const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
  return { status, code: (JSON.parse(body) as { error: { code: unknown } }).error.code };
}

describe("the receive timeout", () => {
  it("answers a body trickled past it 408 request_timeout and closes the connection", async () => {
    const port = await listening(300);
    const head =
      `POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      `Authorization: ${JSON_HEADERS.authorization}\r\nContent-Type: application/json\r\n` +
      `Content-Length: 1000\r\n\r\n{"title":"`;
    const answer = await within(trickled(port, head, "x".repeat(1000)), "the answer", 10_000);
    expect(errorOf(answer)).toEqual({ status: "408", code: "request_timeout" });
  });

  it("answers headers trickled past it 408 request_timeout in the API's shape", async () => {
    const port = await listening(300);
    const head = `GET /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
    const answer = await within(
      trickled(port, head, `X-Slow: ${"y".repeat(1000)}`),
      "the answer",
      10_000,
    );
    expect(errorOf(answer)).toEqual({ status: "408", code: "request_timeout" });
  });

  it("leaves a request sent at once alone", async () => {
    const port = await listening(300);
    const response = await fetch(`http://127.0.0.1:${port}/v1/sessions`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify({ title: "quick" }),
    });
    expect(response.status).toBe(201);
    // Past the bound, the connection that carried it is not answered a second time.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(
      (await fetch(`http://127.0.0.1:${port}/v1/sessions`, { headers: JSON_HEADERS })).status,
    ).toBe(200);
  });
});
