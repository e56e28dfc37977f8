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

type Writable = NodeJS.WritableStream & { destroyed: boolean };

/** Writes `bytes` of a JSON input (`{"text":"xxx…","delivery":"queue"}`) until `stop()`. */
async function writeLargeJson(writable: Writable, bytes: number, stopped: () => boolean) {
  const head = '{"text":"';
  const tail = '","delivery":"queue"}';
  writable.write(head);
  await writeFiller(writable, bytes - head.length - tail.length, stopped);
  if (!stopped() && !writable.destroyed) writable.end(tail);
}

/** Writes a multipart input (boundary `x`) with files of `sizes` bytes until `stop()`. */
async function writeLargeMultipart(writable: Writable, sizes: number[], stopped: () => boolean) {
  const field = (name: string, value: string) =>
    `--x\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  writable.write(field("text", "[[reply big]]") + field("delivery", "queue"));
  for (const [index, size] of sizes.entries()) {
    if (stopped() || writable.destroyed) return;
    writable.write(
      `--x\r\nContent-Disposition: form-data; name="f${index}"; filename="big${index}.txt"\r\n` +
        "Content-Type: text/plain\r\n\r\n",
    );
    await writeFiller(writable, size, stopped);
    writable.write("\r\n");
  }
  if (!stopped() && !writable.destroyed) writable.end("--x--\r\n");
}

async function writeFiller(writable: Writable, bytes: number, stopped: () => boolean) {
  let left = bytes;
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
    else if ("jsonBytes" in body) void writeLargeJson(outgoing, body.jsonBytes, () => settled);
    else void writeLargeMultipart(outgoing, body.multipartFiles, () => settled);
  });
}
