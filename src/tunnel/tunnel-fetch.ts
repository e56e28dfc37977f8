/**
 * The client's `fetch` through the tunnel: one request stream per call, answered with a real
 * `Response` whose body is fed by the server's frames as the reader pulls, so a streaming
 * answer (NDJSON, SSE) arrives as it is written and a reader that stops stops the server.
 *
 * It fails as the platform's fetch does — `TypeError` for a network failure, the signal's
 * reason (a `DOMException` named "AbortError" by default) for an abort — rather than with an
 * `OpencodeBridgeError`, because callers written for fetch (BridgeClient among them) tell
 * those two apart by exactly these types.
 */

import type { ClientStream, StreamHost } from "./client-streams.js";
import { CreditedSender, ReceiveWindow } from "./flow-control.js";
import type { LinkClosed } from "./frame-link.js";
import { ProtocolViolation } from "./frame-link.js";
import { endToEndHeaders } from "./hop-by-hop.js";
import type { Frame, HeaderPair, ResponseHead } from "./tunnel-frames.js";

/** What `fetch` takes, as `FetchLike` of the client does (a URL string and its init). */
export type TunnelFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

const encoder = new TextEncoder();
// The origin only makes a relative URL parsable: the tunnel carries the path and the query.
const PLACEHOLDER_ORIGIN = "http://tunnel.invalid";
// Statuses whose Response must have a null body (the Fetch standard's null body statuses).
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** The tunnel's `fetch`, bound to the client side `host`. */
export function tunnelFetchOf(host: StreamHost): TunnelFetch {
  return async (input, init = {}) => {
    const url = new URL(String(input), PLACEHOLDER_ORIGIN);
    const path = `${url.pathname}${url.search}`;
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw signal.reason;
    const method = (init.method ?? "GET").toUpperCase();
    const { body, contentType } = await bodyBytesOf(init.body);
    if (signal?.aborted) throw signal.reason;
    const headers = headerPairsOf(new Headers(init.headers ?? undefined), contentType, body);
    return new FetchStream(host, { method, path, headers }, body, signal).response;
  };
}

/** The body as bytes; a body of another kind (Blob, FormData, a stream) is read whole first. */
async function bodyBytesOf(
  body: RequestInit["body"],
): Promise<{ body: Uint8Array | undefined; contentType: string | null }> {
  if (body === undefined || body === null) return { body: undefined, contentType: null };
  if (typeof body === "string") {
    return { body: encoder.encode(body), contentType: "text/plain;charset=UTF-8" };
  }
  // Copied, as fetch copies a body when it is called: the caller may reuse its buffer while
  // the body still waits for the window.
  if (body instanceof ArrayBuffer)
    return { body: new Uint8Array(body.slice(0)), contentType: null };
  if (ArrayBuffer.isView(body)) {
    const view = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    return { body: view.slice(), contentType: null };
  }
  // FormData, URLSearchParams, Blob, ReadableStream: the platform encodes them (a multipart
  // boundary, a form's content type) as its own fetch would.
  const encoded = new Response(body);
  return {
    body: new Uint8Array(await encoded.arrayBuffer()),
    contentType: encoded.headers.get("content-type"),
  };
}

function headerPairsOf(
  headers: Headers,
  contentType: string | null,
  body: Uint8Array | undefined,
): HeaderPair[] {
  if (contentType !== null && !headers.has("content-type"))
    headers.set("content-type", contentType);
  headers.delete("content-length");
  const pairs = endToEndHeaders([...headers]);
  if (body !== undefined) pairs.push(["content-length", String(body.byteLength)]);
  return pairs;
}

type Phase = "awaiting-head" | "body" | "done";

/** One fetch: the request going out, the answer coming back. */
class FetchStream implements ClientStream {
  readonly response: Promise<Response>;
  #resolve!: (response: Response) => void;
  #reject!: (error: unknown) => void;
  #phase: Phase = "awaiting-head";
  readonly #id: number;
  readonly #sender: CreditedSender;
  readonly #window = new ReceiveWindow();
  readonly #chunks: Uint8Array[] = [];
  #ended = false;
  /** The body is handed out and not yet closed, errored or cancelled. */
  #bodyOpen = false;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #pullWaiting: (() => void) | undefined;
  readonly #onAbort = (): void => this.#abort();

  constructor(
    private readonly host: StreamHost,
    private readonly head: { method: string; path: string; headers: HeaderPair[] },
    body: Uint8Array | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.response = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#sender = new CreditedSender(host.maxChunkBytes);
    const opened = host.open(this);
    if ("refused" in opened) {
      this.#id = 0;
      this.#phase = "done";
      this.#reject(new TypeError(`fetch ${head.path} failed: ${opened.refused}`));
      return;
    }
    this.#id = opened.id;
    try {
      host.send({ type: "request", streamId: this.#id, head });
    } catch (error) {
      // A head too large to frame: the server never saw the stream, so nothing to reset.
      this.#fail(new TypeError(`fetch ${head.path} failed: ${describe(error)}`), false);
      return;
    }
    const id = this.#id;
    if (body !== undefined && body.byteLength > 0) {
      this.#sender.write(body, (chunk) =>
        host.send({ type: "request-data", streamId: id, data: chunk }),
      );
    }
    this.#sender.write(new Uint8Array(0), () => host.send({ type: "request-end", streamId: id }));
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  frame(frame: Frame): void {
    switch (frame.type) {
      case "response":
        if (this.#phase !== "awaiting-head") throw this.#outOfPlace(frame);
        this.#answer(frame.head);
        return;
      case "response-data":
        if (this.#phase !== "body") throw this.#outOfPlace(frame);
        if (!this.#window.take(frame.data.byteLength)) {
          throw new ProtocolViolation(`stream ${this.#id}: the server overran its window`);
        }
        this.#chunks.push(frame.data);
        this.#deliver();
        return;
      case "response-end":
        if (this.#phase !== "body") throw this.#outOfPlace(frame);
        this.#ended = true;
        this.#settle();
        this.#deliver();
        return;
      case "window":
        this.#sender.grant(frame.credit);
        return;
      case "reset":
        this.#fail(
          new TypeError(
            `fetch ${this.head.path} failed: the tunnel's server reset it (${frame.reset.code}: ${frame.reset.message})`,
          ),
          false,
        );
        return;
      default:
        throw this.#outOfPlace(frame);
    }
  }

  channelClosed(closed: LinkClosed): void {
    this.#fail(
      new TypeError(
        `fetch ${this.head.path} failed: tunnel closed: ${closed.reason || `code ${closed.code}`}`,
      ),
      false,
    );
  }

  #answer(head: ResponseHead): void {
    const headers = new Headers();
    try {
      for (const [name, value] of head.headers) headers.append(name, value);
    } catch (error) {
      this.#fail(new TypeError(`fetch ${this.head.path} failed: ${String(error)}`), true);
      return;
    }
    this.#phase = "body";
    this.#bodyOpen = !NULL_BODY_STATUSES.has(head.status);
    const body = NULL_BODY_STATUSES.has(head.status)
      ? null
      : new ReadableStream<Uint8Array>(
          {
            start: (controller) => {
              this.#controller = controller;
            },
            pull: () => this.#pull(),
            cancel: () => this.#cancel(),
          },
          // Nothing is read ahead of the reader: what it has not asked for stays unconsumed,
          // so the window it grants follows its reading.
          { highWaterMark: 0 },
        );
    this.#resolve(new Response(body, { status: head.status, headers }));
  }

  #pull(): Promise<void> | undefined {
    if (this.#deliverOne()) return undefined;
    return new Promise((resolve) => {
      this.#pullWaiting = resolve;
    });
  }

  #deliver(): void {
    if (this.#pullWaiting === undefined) return;
    if (!this.#deliverOne()) return;
    const resolve = this.#pullWaiting;
    this.#pullWaiting = undefined;
    resolve();
  }

  /** Hands the reader one chunk (or the end); false when there is nothing to hand yet. */
  #deliverOne(): boolean {
    const controller = this.#controller;
    if (controller === undefined) return this.#ended;
    const chunk = this.#chunks.shift();
    if (chunk !== undefined) {
      controller.enqueue(chunk);
      const credit = this.#window.consumed(chunk.byteLength);
      if (credit > 0 && this.#phase === "body") {
        this.host.send({ type: "window", streamId: this.#id, credit });
      }
      return true;
    }
    if (this.#ended) {
      controller.close();
      this.#bodyOpen = false;
      this.signal?.removeEventListener("abort", this.#onAbort);
      return true;
    }
    return false;
  }

  /** The server ended the answer: the stream is over on both sides, the body maybe unread. */
  #settle(): void {
    this.#phase = "done";
    this.#sender.clear();
    this.host.finish(this.#id);
    if (!this.#bodyOpen) this.signal?.removeEventListener("abort", this.#onAbort);
  }

  #cancel(): void {
    this.#bodyOpen = false;
    this.signal?.removeEventListener("abort", this.#onAbort);
    if (this.#phase === "done") return;
    this.#phase = "done";
    this.#chunks.length = 0;
    this.#release(true, "cancelled", "the reader cancelled the response body");
  }

  #abort(): void {
    const reason: unknown = this.signal?.reason ?? new DOMException("aborted", "AbortError");
    if (this.#phase !== "done") {
      this.#fail(reason, true);
    } else if (this.#bodyOpen) {
      // The answer arrived whole but is not all read: as with fetch, the body errors.
      this.#bodyOpen = false;
      this.#chunks.length = 0;
      this.#controller?.error(reason);
    }
  }

  /** The fetch or its body fails with `error`; `reset`: tell the server to stop. */
  #fail(error: unknown, reset: boolean): void {
    if (this.#phase === "done") return;
    const phase = this.#phase;
    this.#phase = "done";
    this.#chunks.length = 0;
    if (phase === "awaiting-head") this.#reject(error);
    else this.#controller?.error(error);
    this.#bodyOpen = false;
    this.#release(reset, "aborted", describe(error));
  }

  #release(reset: boolean, code: string, message: string): void {
    this.#sender.clear();
    if (reset) this.host.send({ type: "reset", streamId: this.#id, reset: { code, message } });
    this.host.finish(this.#id);
    this.signal?.removeEventListener("abort", this.#onAbort);
    const waiting = this.#pullWaiting;
    this.#pullWaiting = undefined;
    waiting?.();
  }

  #outOfPlace(frame: Frame): ProtocolViolation {
    return new ProtocolViolation(
      `stream ${this.#id}: a ${frame.type} frame where the ${this.#phase} phase allows none`,
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500);
}
