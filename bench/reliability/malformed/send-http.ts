/**
 * Sends one malformed request over `node:http` (which lets a test set any `Host`, send a body
 * chunked, or stop writing once the answer came) and reads the answer: its status and the
 * API error's code, or how it failed (no answer within the bound: a hang; the connection cut
 * without one).
 */
import { type Agent, request } from "node:http";
import type { HttpCase } from "./http-cases.js";

export type Answer =
  | { status: number; code: string | undefined; text: string }
  | { failed: "hang" | "cut"; detail: string };

const CHUNK = Buffer.alloc(64 * 1024, "x");

/** The error code of an API error body (`{ error: { code } }`), if the text is one. */
export function errorCodeOf(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
    const error = body.error;
    if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
    return typeof error.code === "string" ? error.code : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `bytes` of a JSON input (`{"text":"xxx…","delivery":"queue"}`) until `stop()`. */
async function writeLarge(
  writable: NodeJS.WritableStream & { destroyed: boolean },
  bytes: number,
  stopped: () => boolean,
): Promise<void> {
  const head = Buffer.from('{"text":"');
  const tail = Buffer.from('","delivery":"queue"}');
  writable.write(head);
  let left = bytes - head.length - tail.length;
  while (left > 0 && !stopped() && !writable.destroyed) {
    const piece = CHUNK.subarray(0, Math.min(left, CHUNK.length));
    left -= piece.length;
    if (!writable.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          writable.off("drain", done);
          writable.off("close", done);
          resolve();
        };
        writable.on("drain", done);
        writable.on("close", done);
      });
    }
  }
  if (!stopped() && !writable.destroyed) writable.end(tail);
}

export function sendHttp(
  port: number,
  agent: Agent,
  malformed: HttpCase,
  boundMs: number,
): Promise<Answer> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const outgoing = request({
      host: "127.0.0.1",
      port,
      method: malformed.method,
      path: malformed.path,
      headers: malformed.headers,
      agent,
    });
    const timer = setTimeout(() => {
      settle({ failed: "hang", detail: `no answer within ${boundMs} ms` });
      outgoing.destroy();
    }, boundMs);
    outgoing.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", () => {});
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        settle({ status: response.statusCode ?? 0, code: errorCodeOf(text), text });
      });
    });
    outgoing.on("error", (error) => settle({ failed: "cut", detail: error.message }));
    const body = malformed.body;
    if (body === undefined) outgoing.end();
    else if (typeof body === "string") outgoing.end(body);
    else void writeLarge(outgoing, body.jsonBytes, () => settled);
  });
}
