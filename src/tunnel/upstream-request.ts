/**
 * One tunnelled request on the server side: an `http.request` to the target, the client's
 * body written in as it arrives (the window granted back as the target takes it), the answer
 * sent back in frames the client's window allows — the target's response is paused while the
 * window is spent, so a client that stops reading stops the target's writes.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http";
import { CreditedSender, ReceiveWindow } from "./flow-control.js";
import { ProtocolViolation } from "./frame-link.js";
import { endToEndHeaders } from "./hop-by-hop.js";
import type { ServerStream, ServerStreamHost } from "./server-streams.js";
import type { Frame, RequestHead } from "./tunnel-frames.js";
import { headerRecordOf, pairsOfRawHeaders, type UpstreamContext } from "./upstream-target.js";

/** The code of the 502 answered when the target did not answer (its body's `error.code`). */
export const UPSTREAM_FAILED = "tunnel_upstream_failed";

const encoder = new TextEncoder();

type Phase = "requesting" | "answering" | "done";

export class UpstreamRequest implements ServerStream {
  #phase: Phase = "requesting";
  #request: ClientRequest | undefined;
  #response: IncomingMessage | undefined;
  #requestEnded = false;
  readonly #sender: CreditedSender;
  readonly #window = new ReceiveWindow();

  constructor(
    private readonly context: UpstreamContext,
    private readonly host: ServerStreamHost,
    private readonly streamId: number,
    private readonly head: RequestHead,
  ) {
    this.#sender = new CreditedSender(host.maxChunkBytes);
  }

  start(): void {
    if (this.head.method.toUpperCase() === "CONNECT") {
      // A CONNECT would turn the stream into a raw connection from the server side, to
      // anywhere the target proxies: never what a sidecar's API needs.
      this.#refuse("method-not-allowed", "the tunnel does not carry CONNECT");
      return;
    }
    let request: ClientRequest;
    try {
      request = httpRequest({
        ...this.context.target,
        agent: this.context.agent,
        method: this.head.method,
        path: this.head.path,
        headers: headerRecordOf(this.context.headersFor(this.head.headers, false)),
      });
    } catch (error) {
      this.#failed(asError(error));
      return;
    }
    // A body longer than the client's content-length would be read by the target as a second
    // request on the same kept-alive connection, one the tunnel never marked as the device's.
    (request as ClientRequest & { strictContentLength: boolean }).strictContentLength = true;
    this.#request = request;
    request.on("response", (response) => this.#answer(response));
    // Always listened to: an error nobody listens to would crash the process.
    request.on("error", (error) => this.#failed(error));
  }

  frame(frame: Frame): void {
    switch (frame.type) {
      case "request-data": {
        if (this.#requestEnded) throw this.#outOfPlace(frame);
        if (!this.#window.take(frame.data.byteLength)) {
          throw new ProtocolViolation(`stream ${this.streamId}: the client overran its window`);
        }
        const size = frame.data.byteLength;
        // Granted back once the target's connection took it: the body flows at its pace.
        this.#toTarget((request) => request.write(frame.data, () => this.#consumed(size)));
        return;
      }
      case "request-end":
        if (this.#requestEnded) throw this.#outOfPlace(frame);
        this.#requestEnded = true;
        this.#toTarget((request) => request.end());
        return;
      case "window":
        this.#sender.grant(frame.credit);
        return;
      case "reset":
        this.#finish();
        return;
      default:
        throw this.#outOfPlace(frame);
    }
  }

  destroy(): void {
    this.#finish();
  }

  #answer(response: IncomingMessage): void {
    if (this.#phase !== "requesting") {
      response.destroy();
      return;
    }
    this.#phase = "answering";
    this.#response = response;
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 599) {
      this.#phase = "requesting";
      this.#failed(
        new Error(`the target answered status ${status}, which a Response cannot carry`),
      );
      return;
    }
    try {
      this.host.send({
        type: "response",
        streamId: this.streamId,
        head: { status, headers: endToEndHeaders(pairsOfRawHeaders(response.rawHeaders)) },
      });
    } catch (error) {
      // A head too large to frame: answered as a failure of the target instead.
      this.#phase = "requesting";
      this.#failed(asError(error));
      return;
    }
    response.on("data", (chunk: Buffer) => {
      if (this.#phase !== "answering") return;
      const sentAll = this.#sender.write(chunk, (part) =>
        this.host.send({ type: "response-data", streamId: this.streamId, data: part }),
      );
      if (!sentAll) {
        response.pause();
        this.#sender.onceIdle(() => {
          if (this.#phase === "answering") response.resume();
        });
      }
    });
    response.on("end", () => {
      if (this.#phase !== "answering") return;
      this.#sender.write(new Uint8Array(0), () => {
        this.host.send({ type: "response-end", streamId: this.streamId });
        this.#finish();
      });
    });
    response.on("close", () => {
      if (this.#phase === "answering" && !response.complete) {
        this.#failed(new Error("the target's response broke off"));
      }
    });
    response.on("error", () => {
      // Reported by "close" (the response is then not complete).
    });
  }

  #consumed(bytes: number): void {
    if (this.#phase === "done") return;
    const credit = this.#window.consumed(bytes);
    if (credit > 0) this.host.send({ type: "window", streamId: this.streamId, credit });
  }

  /**
   * Writes to the target's request. Node throws when the body and its content-length disagree
   * (strictContentLength): that stream fails alone, the tunnel goes on.
   */
  #toTarget(write: (request: ClientRequest) => void): void {
    if (this.#request === undefined) return;
    try {
      write(this.#request);
    } catch (error) {
      this.#failed(asError(error));
    }
  }

  /** The target failed: a 502 if no answer was sent yet, else a RESET. */
  #failed(error: Error): void {
    if (this.#phase === "done") return;
    this.context.reportError({
      streamId: this.streamId,
      kind: "request",
      path: this.head.path,
      error,
    });
    if (this.#phase === "requesting") {
      const body = encoder.encode(
        JSON.stringify({
          error: {
            code: UPSTREAM_FAILED,
            message: `the tunnel's server got no answer from its target: ${error.message}`,
          },
        }),
      );
      this.host.send({
        type: "response",
        streamId: this.streamId,
        head: {
          status: 502,
          headers: [
            ["content-type", "application/json"],
            ["content-length", String(body.byteLength)],
          ],
        },
      });
      this.host.send({ type: "response-data", streamId: this.streamId, data: body });
      this.host.send({ type: "response-end", streamId: this.streamId });
    } else {
      this.#refuse("upstream-failed", error.message.slice(0, 500));
      return;
    }
    this.#finish();
  }

  #refuse(code: string, message: string): void {
    this.host.send({ type: "reset", streamId: this.streamId, reset: { code, message } });
    this.#finish();
  }

  /** Over: the target's request and response closed, the stream forgotten. */
  #finish(): void {
    if (this.#phase === "done") return;
    this.#phase = "done";
    this.#sender.clear();
    this.host.finish(this.streamId);
    // Destroying a finished exchange is harmless; an unfinished one must not linger upstream.
    if (!(this.#response?.complete ?? false)) {
      this.#response?.destroy();
      this.#request?.destroy();
    } else if (!this.#requestEnded) {
      this.#request?.destroy();
    }
  }

  #outOfPlace(frame: Frame): ProtocolViolation {
    return new ProtocolViolation(
      `stream ${this.streamId}: a ${frame.type} frame where the ${this.#phase} phase allows none`,
    );
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
