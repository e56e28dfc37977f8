/**
 * The client's `WebSocket` through the tunnel: the WHATWG WebSocket's shape (readyState and
 * its constants, send, close, open/message/close/error events by listener or `on…` property)
 * over one stream of WS_OPEN, WS_ACCEPTED, WS_MESSAGE and WS_CLOSE frames. Binary messages
 * arrive as `ArrayBuffer` (as with `binaryType = "arraybuffer"`); there is no Blob.
 */
import type { ClientStream, StreamHost } from "./client-streams.js";
import { concatBytes } from "./concat-bytes.js";
import { CreditedSender, ReceiveWindow } from "./flow-control.js";
import type { LinkClosed } from "./frame-link.js";
import { ProtocolViolation } from "./frame-link.js";
import { type Frame, MAX_CLOSE_REASON_BYTES } from "./tunnel-frames.js";

/** The events a tunnel WebSocket dispatches. */
export interface TunnelWebSocketEventMap {
  open: { type: "open"; target: TunnelWebSocket };
  message: { type: "message"; data: string | ArrayBuffer; target: TunnelWebSocket };
  close: {
    type: "close";
    code: number;
    reason: string;
    wasClean: boolean;
    target: TunnelWebSocket;
  };
  error: { type: "error"; message: string; target: TunnelWebSocket };
}

type EventName = keyof TunnelWebSocketEventMap;
type Listener<K extends EventName> = (event: TunnelWebSocketEventMap[K]) => void;

/** A WebSocket whose connection is a stream of the tunnel. */
export interface TunnelWebSocket {
  readonly url: string;
  readonly protocol: string;
  readonly readyState: number;
  /** Bytes of sent messages still waiting for the server's window. */
  readonly bufferedAmount: number;
  readonly binaryType: "arraybuffer";
  readonly CONNECTING: 0;
  readonly OPEN: 1;
  readonly CLOSING: 2;
  readonly CLOSED: 3;
  onopen: Listener<"open"> | null;
  onmessage: Listener<"message"> | null;
  onclose: Listener<"close"> | null;
  onerror: Listener<"error"> | null;
  send(data: string | Uint8Array | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  addEventListener<K extends EventName>(type: K, listener: Listener<K>): void;
  removeEventListener<K extends EventName>(type: K, listener: Listener<K>): void;
}

/** The class `openTunnelClient` gives as `WebSocket`. */
export interface TunnelWebSocketConstructor {
  new (url: string | URL, protocols?: string | string[]): TunnelWebSocket;
  readonly CONNECTING: 0;
  readonly OPEN: 1;
  readonly CLOSING: 2;
  readonly CLOSED: 3;
}

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;
/** "No status received": a close without a code. */
const NO_STATUS = 1005;
/** "Abnormal closure": the connection ended without a close. */
const ABNORMAL = 1006;

const encoder = new TextEncoder();
const textDecoder = new TextDecoder("utf-8", { fatal: true });

/** The WebSocket class of the client side `host`. */
export function tunnelWebSocketClassOf(host: StreamHost): TunnelWebSocketConstructor {
  return class extends TunnelSocket {
    static readonly CONNECTING = CONNECTING;
    static readonly OPEN = OPEN;
    static readonly CLOSING = CLOSING;
    static readonly CLOSED = CLOSED;
    constructor(url: string | URL, protocols?: string | string[]) {
      super(host, url, protocols);
    }
  };
}

class TunnelSocket implements TunnelWebSocket, ClientStream {
  readonly CONNECTING = CONNECTING;
  readonly OPEN = OPEN;
  readonly CLOSING = CLOSING;
  readonly CLOSED = CLOSED;
  readonly binaryType = "arraybuffer";
  readonly url: string;
  protocol = "";
  readyState: number = CONNECTING;
  onopen: Listener<"open"> | null = null;
  onmessage: Listener<"message"> | null = null;
  onclose: Listener<"close"> | null = null;
  onerror: Listener<"error"> | null = null;
  readonly #listeners = new Map<EventName, Set<(event: never) => void>>();
  readonly #id: number;
  readonly #sender: CreditedSender;
  readonly #window = new ReceiveWindow();
  #fragments: Uint8Array[] = [];
  #fragmentBytes = 0;

  constructor(
    private readonly host: StreamHost,
    url: string | URL,
    protocols?: string | string[],
  ) {
    const parsed = new URL(String(url), "ws://tunnel.invalid");
    this.url = parsed.href;
    const offered =
      protocols === undefined ? [] : typeof protocols === "string" ? [protocols] : protocols;
    this.#sender = new CreditedSender(host.maxChunkBytes);
    const opened = host.open(this);
    if ("refused" in opened) {
      this.#id = 0;
      // As a browser's socket that cannot connect: the events come after the constructor.
      queueMicrotask(() => this.#closeAbnormally(opened.refused));
      return;
    }
    this.#id = opened.id;
    try {
      host.send({
        type: "ws-open",
        streamId: this.#id,
        head: { path: `${parsed.pathname}${parsed.search}`, headers: [], protocols: [...offered] },
      });
    } catch (error) {
      // As a browser refuses a protocol that is not a token: at once, in the constructor.
      host.finish(this.#id);
      throw new DOMException(
        `cannot open a WebSocket to ${this.url}: ${error instanceof Error ? error.message : String(error)}`,
        "SyntaxError",
      );
    }
  }

  get bufferedAmount(): number {
    return this.#sender.queuedBytes;
  }

  send(data: string | Uint8Array | ArrayBuffer): void {
    if (this.readyState === CONNECTING) {
      throw new DOMException("the WebSocket is still connecting", "InvalidStateError");
    }
    if (this.readyState !== OPEN) return;
    const binary = typeof data !== "string";
    const bytes = typeof data === "string" ? encoder.encode(data) : new Uint8Array(data);
    const id = this.#id;
    this.#sender.write(bytes, (chunk, last) =>
      this.host.send({ type: "ws-message", streamId: id, binary, more: !last, data: chunk }),
    );
  }

  close(code?: number, reason = ""): void {
    if (code !== undefined && code !== 1000 && !(code >= 3000 && code <= 4999)) {
      throw new DOMException(
        `close code ${code} is neither 1000 nor 3000-4999`,
        "InvalidAccessError",
      );
    }
    if (encoder.encode(reason).byteLength > MAX_CLOSE_REASON_BYTES) {
      throw new DOMException(
        `a close reason is at most ${MAX_CLOSE_REASON_BYTES} bytes`,
        "SyntaxError",
      );
    }
    if (this.readyState === CLOSING || this.readyState === CLOSED) return;
    if (this.readyState === CONNECTING) {
      this.host.send({
        type: "reset",
        streamId: this.#id,
        reset: { code: "cancelled", message: "the client closed the socket before it opened" },
      });
      this.host.finish(this.#id);
      this.#closeAbnormally("the WebSocket was closed before the connection was established");
      return;
    }
    this.readyState = CLOSING;
    const id = this.#id;
    // Behind the messages still waiting for the window, as a WebSocket sends its close last.
    this.#sender.write(new Uint8Array(0), () =>
      this.host.send({ type: "ws-close", streamId: id, code: code ?? NO_STATUS, reason }),
    );
  }

  addEventListener<K extends EventName>(type: K, listener: Listener<K>): void {
    let set = this.#listeners.get(type);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(type, set);
    }
    set.add(listener as (event: never) => void);
  }

  removeEventListener<K extends EventName>(type: K, listener: Listener<K>): void {
    this.#listeners.get(type)?.delete(listener as (event: never) => void);
  }

  frame(frame: Frame): void {
    switch (frame.type) {
      case "ws-accepted":
        if (this.readyState !== CONNECTING) throw this.#outOfPlace(frame);
        this.protocol = frame.head.protocol;
        this.readyState = OPEN;
        this.#dispatch("open", { type: "open", target: this });
        return;
      case "ws-message":
        if (this.readyState !== OPEN && this.readyState !== CLOSING) throw this.#outOfPlace(frame);
        this.#message(frame.data, frame.binary, frame.more);
        return;
      case "ws-close":
        if (this.readyState === CONNECTING) throw this.#outOfPlace(frame);
        this.host.finish(this.#id);
        this.#closed(frame.code, frame.reason, frame.code !== ABNORMAL);
        return;
      case "window":
        this.#sender.grant(frame.credit);
        return;
      case "reset":
        this.host.finish(this.#id);
        this.#closeAbnormally(
          frame.reset.status === undefined
            ? `the tunnel's server reset the WebSocket (${frame.reset.code}: ${frame.reset.message})`
            : `the upgrade was refused with status ${frame.reset.status} (${frame.reset.message})`,
        );
        return;
      default:
        throw this.#outOfPlace(frame);
    }
  }

  channelClosed(closed: LinkClosed): void {
    this.#closeAbnormally(`tunnel closed: ${closed.reason || `code ${closed.code}`}`);
  }

  #message(data: Uint8Array, binary: boolean, more: boolean): void {
    if (!this.#window.take(data.byteLength)) {
      throw new ProtocolViolation(`stream ${this.#id}: the server overran its window`);
    }
    // Messages are handed to the listeners at once (a WebSocket has no backpressure), so the
    // window is granted back on arrival: it bounds what is in flight, not what is kept.
    const credit = this.#window.consumed(data.byteLength);
    if (credit > 0) this.host.send({ type: "window", streamId: this.#id, credit });
    this.#fragmentBytes += data.byteLength;
    if (this.#fragmentBytes > this.host.limits.maxWebSocketMessageBytes) {
      throw new ProtocolViolation(
        `stream ${this.#id}: a WebSocket message over maxWebSocketMessageBytes (${this.host.limits.maxWebSocketMessageBytes})`,
      );
    }
    this.#fragments.push(data);
    if (more) return;
    const whole = concatBytes(this.#fragments, this.#fragmentBytes);
    this.#fragments = [];
    this.#fragmentBytes = 0;
    if (this.readyState !== OPEN) return;
    let payload: string | ArrayBuffer;
    if (binary) {
      payload = whole.slice().buffer;
    } else {
      try {
        payload = textDecoder.decode(whole);
      } catch {
        throw new ProtocolViolation(`stream ${this.#id}: a text WebSocket message is not UTF-8`);
      }
    }
    this.#dispatch("message", { type: "message", data: payload, target: this });
  }

  #closeAbnormally(message: string): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.#sender.clear();
    this.#dispatch("error", { type: "error", message, target: this });
    this.#dispatch("close", {
      type: "close",
      code: ABNORMAL,
      reason: "",
      wasClean: false,
      target: this,
    });
  }

  #closed(code: number, reason: string, wasClean: boolean): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.#sender.clear();
    this.#dispatch("close", { type: "close", code, reason, wasClean, target: this });
  }

  #dispatch<K extends EventName>(type: K, event: TunnelWebSocketEventMap[K]): void {
    const property = {
      open: this.onopen,
      message: this.onmessage,
      close: this.onclose,
      error: this.onerror,
    }[type] as Listener<K> | null;
    const listeners = [...(this.#listeners.get(type) ?? [])] as Listener<K>[];
    if (property !== null) listeners.push(property);
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        // As a browser reports a listener's exception without stopping the others (or the
        // tunnel, whose frame this is): thrown again outside, where it is seen.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  #outOfPlace(frame: Frame): ProtocolViolation {
    return new ProtocolViolation(
      `stream ${this.#id}: a ${frame.type} frame in readyState ${this.readyState}`,
    );
  }
}
