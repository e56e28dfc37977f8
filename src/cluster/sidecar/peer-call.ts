/**
 * One HTTP call from a sidecar to another of its cluster (a command forwarded to a session's
 * driver). node:http rather than fetch, for what the forwarder must tell apart: a peer that
 * could not be reached (no connection or TLS handshake within `connectTimeoutMs`, or its
 * certificate refused: the command surely never arrived, so trying again is safe) from one
 * that failed once the request was on its way (it may have acted on it). A fresh connection each time: a kept-alive socket the peer had
 * closed would fail after "connecting", for nothing.
 */
import http from "node:http";
import https from "node:https";
import { AbortError } from "../../errors.js";

export interface PeerRequest {
  /** The peer's address and the path (and query) of the command. */
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
  signal: AbortSignal;
  connectTimeoutMs: number;
  /** Larger answers are refused (the API's answers to commands are small JSON). */
  maxAnswerBytes: number;
  /** PEM CA certificate(s) an https peer's certificate must chain to (default: Node's CAs). */
  ca?: string | undefined;
}

export interface PeerAnswer {
  status: number;
  headers: Readonly<Record<string, string | string[] | number | undefined>>;
  body: Buffer;
}

/** The call failed before an answer came; `delivered`: the request may have reached the peer. */
export class PeerCallError extends Error {
  readonly delivered: boolean;

  constructor(message: string, delivered: boolean, cause: unknown) {
    super(message, { cause });
    this.name = "PeerCallError";
    this.delivered = delivered;
  }
}

/** Sends `request` and reads the whole answer; rejects with `PeerCallError` or `AbortError`. */
export function callPeer(request: PeerRequest): Promise<PeerAnswer> {
  const url = new URL(request.url);
  const client = url.protocol === "https:" ? https : http;
  return new Promise<PeerAnswer>((resolve, reject) => {
    let connected = false;
    const outgoing = client.request(
      url,
      {
        method: request.method,
        headers: { ...request.headers, "content-length": String(request.body.length) },
        signal: request.signal,
        agent: false,
        ...(request.ca === undefined ? {} : { ca: request.ca }),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > request.maxAnswerBytes) {
            outgoing.destroy(new Error(`its answer is over ${request.maxAnswerBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        incoming.on("end", () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: Buffer.concat(chunks),
          }),
        );
        incoming.on("error", fail);
      },
    );
    const connecting = setTimeout(
      () => outgoing.destroy(new Error(`no connection within ${request.connectTimeoutMs} ms`)),
      request.connectTimeoutMs,
    );
    outgoing.on("socket", (socket) => {
      const onConnect = () => {
        connected = true;
        clearTimeout(connecting);
      };
      // Over https the request goes out only after the handshake: a peer whose certificate
      // is refused never got it (trying again is as safe as after no connection).
      if (url.protocol === "https:") socket.once("secureConnect", onConnect);
      else if (socket.connecting) socket.once("connect", onConnect);
      else onConnect();
    });
    outgoing.on("error", fail);
    outgoing.on("close", () => clearTimeout(connecting));
    outgoing.end(request.body);

    function fail(error: Error): void {
      clearTimeout(connecting);
      if (request.signal.aborted) {
        reject(new AbortError("forwarding a command to the session's driver", { cause: error }));
        return;
      }
      const stage = connected ? "failed while handling it" : "could not be reached";
      reject(new PeerCallError(`${url.origin} ${stage} (${error.message})`, connected, error));
    }
  });
}
