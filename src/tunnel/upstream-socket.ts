/**
 * One tunnelled WebSocket on the server side: a `ws` client to the target, messages relayed
 * both ways (the target's paused while the client's window is spent; the client's granted back
 * once the target's socket took them), closes mirrored, a refused upgrade told with its status.
 */

import { connect } from "node:net";
import { concatBytes } from "./concat-bytes.js";
import { CreditedSender, ReceiveWindow } from "./flow-control.js";
import { clipUtf8, ProtocolViolation } from "./frame-link.js";
import type { ServerStream, ServerStreamHost } from "./server-streams.js";
import { type Frame, MAX_CLOSE_REASON_BYTES, type WsOpenHead } from "./tunnel-frames.js";
import { type UpstreamWebSocket, UpstreamWebSocketClient } from "./tunnel-ws.js";
import { headerRecordOf, type UpstreamContext } from "./upstream-target.js";

/** How long the target may take to accept an upgrade. */
const HANDSHAKE_TIMEOUT_MS = 30_000;
/** "Message too big", the WebSocket close code. */
const MESSAGE_TOO_BIG = 1009;
const NO_STATUS = 1005;

// "closing": the target closed; its last messages and the close wait for the client's window.
type Phase = "connecting" | "open" | "closing" | "done";

export class UpstreamSocket implements ServerStream {
  #phase: Phase = "connecting";
  #socket: UpstreamWebSocket | undefined;
  readonly #sender: CreditedSender;
  readonly #window = new ReceiveWindow();
  #fragments: Uint8Array[] = [];
  #fragmentBytes = 0;

  constructor(
    private readonly context: UpstreamContext,
    private readonly host: ServerStreamHost,
    private readonly streamId: number,
    private readonly head: WsOpenHead,
  ) {
    this.#sender = new CreditedSender(host.maxChunkBytes);
  }

  start(): void {
    const target = this.context.target;
    // A Unix socket is connected to by its path, never through a `ws+unix:PATH:REQUEST` URL:
    // `ws` splits that at the first colon after resolving dot segments, so a client's path
    // (`/../../tmp/other.sock:/x`) would choose the socket the target's token is sent to, and
    // a socket path with a space, `%` or `:` would reach another file.
    const url =
      "socketPath" in target
        ? `ws://localhost${this.head.path}`
        : `ws://${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}${this.head.path}`;
    let socket: UpstreamWebSocket;
    try {
      socket = new UpstreamWebSocketClient(url, this.head.protocols, {
        ...("socketPath" in target
          ? { createConnection: () => connect({ path: target.socketPath }) }
          : {}),
        headers: headerRecordOf(this.context.headersFor(this.head.headers, true)),
        perMessageDeflate: false,
        maxPayload: this.host.limits.maxWebSocketMessageBytes,
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      });
    } catch (error) {
      this.#reset("upstream-failed", error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.#socket = socket;
    socket.on("open", () => this.#opened(socket));
    socket.on("message", (data, isBinary) => this.#relay(socket, data, isBinary));
    socket.on("close", (code, reason) => this.#upstreamClosed(code, reason.toString("utf8")));
    socket.on("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 502;
      this.#reset(
        "upgrade-refused",
        new Error(
          `the target refused the upgrade: ${status} ${response.statusMessage ?? ""}`.trim(),
        ),
        status,
      );
    });
    // Always listened to: an error nobody listens to would crash the process. Before the
    // upgrade it is the stream's end; after it, "close" (1006) follows and says so.
    socket.on("error", (error) => {
      if (this.#phase === "connecting") this.#reset("upstream-failed", error);
    });
  }

  frame(frame: Frame): void {
    switch (frame.type) {
      case "ws-message":
        if (this.#phase === "connecting") throw this.#outOfPlace(frame);
        // While closing, the client's messages crossed the target's close: dropped.
        if (this.#phase === "open") this.#fromClient(frame.data, frame.binary, frame.more);
        return;
      case "ws-close":
        if (this.#phase === "connecting") throw this.#outOfPlace(frame);
        if (this.#phase === "open") this.#closeUpstream(frame.code, frame.reason);
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

  #opened(socket: UpstreamWebSocket): void {
    if (this.#phase !== "connecting") return;
    this.#phase = "open";
    this.host.send({
      type: "ws-accepted",
      streamId: this.streamId,
      head: { protocol: socket.protocol },
    });
  }

  #relay(socket: UpstreamWebSocket, data: Buffer, binary: boolean): void {
    if (this.#phase !== "open") return;
    const sentAll = this.#sender.write(data, (chunk, last) =>
      this.host.send({
        type: "ws-message",
        streamId: this.streamId,
        binary,
        more: !last,
        data: chunk,
      }),
    );
    if (!sentAll) {
      socket.pause();
      this.#sender.onceIdle(() => {
        if (this.#phase === "open") socket.resume();
      });
    }
  }

  #fromClient(data: Uint8Array, binary: boolean, more: boolean): void {
    if (!this.#window.take(data.byteLength)) {
      throw new ProtocolViolation(`stream ${this.streamId}: the client overran its window`);
    }
    this.#fragmentBytes += data.byteLength;
    if (this.#fragmentBytes > this.host.limits.maxWebSocketMessageBytes) {
      this.#closeBoth(MESSAGE_TOO_BIG, "message too big");
      return;
    }
    this.#fragments.push(data);
    if (more) {
      // A message is sent only whole: its first fragments are granted back at once, or one
      // larger than the window could never complete.
      this.#consumed(data.byteLength);
      return;
    }
    const whole = concatBytes(this.#fragments, this.#fragmentBytes);
    this.#fragments = [];
    this.#fragmentBytes = 0;
    this.#socket?.send(whole, { binary }, () => this.#consumed(data.byteLength));
  }

  #consumed(bytes: number): void {
    if (this.#phase === "done") return;
    const credit = this.#window.consumed(bytes);
    if (credit > 0) this.host.send({ type: "window", streamId: this.streamId, credit });
  }

  #closeUpstream(code: number, reason: string): void {
    try {
      if (code === NO_STATUS) this.#socket?.close();
      else this.#socket?.close(code, reason);
    } catch {
      // A code a client may not send (1006, 1015…): closed without one instead.
      this.#socket?.close();
    }
  }

  /** The target closed: the close goes to the client behind the messages still queued. */
  #upstreamClosed(code: number, reason: string): void {
    if (this.#phase !== "open") return;
    this.#phase = "closing";
    this.#sender.write(new Uint8Array(0), () => {
      this.#phase = "done";
      this.host.send({
        type: "ws-close",
        streamId: this.streamId,
        code,
        reason: clipUtf8(reason, MAX_CLOSE_REASON_BYTES),
      });
      this.host.finish(this.streamId);
    });
  }

  /** Both ends told at once: the client with a WS_CLOSE, the target with its close. */
  #closeBoth(code: number, reason: string): void {
    this.host.send({ type: "ws-close", streamId: this.streamId, code, reason });
    this.#finish();
  }

  #reset(code: string, error: Error, status?: number): void {
    if (this.#phase === "done") return;
    this.context.reportError({
      streamId: this.streamId,
      kind: "websocket",
      path: this.head.path,
      error,
    });
    this.host.send({
      type: "reset",
      streamId: this.streamId,
      reset: {
        code,
        message: error.message.slice(0, 500),
        ...(status !== undefined && { status }),
      },
    });
    this.#finish();
  }

  #finish(): void {
    if (this.#phase === "done") return;
    this.#phase = "done";
    this.#sender.clear();
    this.host.finish(this.streamId);
    this.#socket?.terminate();
  }

  #outOfPlace(frame: Frame): ProtocolViolation {
    return new ProtocolViolation(
      `stream ${this.streamId}: a ${frame.type} frame where the ${this.#phase} phase allows none`,
    );
  }
}
