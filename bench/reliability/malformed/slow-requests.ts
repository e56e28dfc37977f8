/**
 * Requests trickled slower than the sidecar receives them (`limits.receiveTimeoutMs`): the
 * body, or the headers, a byte at a time, never finished. Over a raw socket, since an HTTP
 * client would not send so little so slowly. The answer is read as the sidecar writes it.
 */
import { connect } from "node:net";
import type { Answer } from "./send-http.js";
import { errorCodeOf } from "./send-http.js";

export interface SlowRequest {
  /** Which part trickles: the body (after whole headers), or the headers themselves. */
  part: "body" | "headers";
  /** Milliseconds between two bytes. */
  everyMs: number;
}

/** The status and body of a raw HTTP/1.1 answer (one, not chunked). */
function parseAnswer(raw: string): Answer {
  const match = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(raw);
  if (match === null) return { failed: "cut", detail: `not an HTTP answer: ${raw.slice(0, 80)}` };
  const text = match[3] ?? "";
  return { status: Number(match[1]), code: errorCodeOf(text), text };
}

export function sendSlow(
  port: number,
  token: string,
  sessionId: string,
  slow: SlowRequest,
  boundMs: number,
): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let raw = "";
    let ticker: NodeJS.Timeout | undefined;
    const bound = setTimeout(() => {
      finish({ failed: "hang", detail: `no answer within ${boundMs} ms` });
    }, boundMs);
    const finish = (answer: Answer) => {
      clearTimeout(bound);
      clearInterval(ticker);
      socket.destroy();
      resolve(answer);
    };
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      raw += chunk;
    });
    socket.on("error", () => {}); // the close says what happened
    socket.on("close", () => {
      finish(raw === "" ? { failed: "cut", detail: "closed without an answer" } : parseAnswer(raw));
    });
    const line = `POST /v1/sessions/${sessionId}/inputs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
    const headers = `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n`;
    let trickled: string;
    if (slow.part === "body") {
      socket.write(`${line}${headers}\r\n{"text":"`);
      trickled = "x".repeat(4096);
    } else {
      socket.write(line);
      trickled = `${headers}X-Slow: ${"y".repeat(4096)}`;
    }
    let at = 0;
    ticker = setInterval(() => {
      if (socket.destroyed || at >= trickled.length) return;
      socket.write(trickled.charAt(at++));
    }, slow.everyMs);
  });
}
