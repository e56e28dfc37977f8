/**
 * A `MessageChannel` seen as frames, shared by both sides of the tunnel: decodes what arrives,
 * answers PINGs, and closes the channel, with the reason, on anything the peer got wrong —
 * nothing it sends can throw out of the channel's listener. It closes once, and says so once.
 */
import { UsageError } from "../errors.js";
import { describeError } from "../util/describe-error.js";
import type { MessageChannel } from "./message-channel.js";
import {
  decodeFrame,
  encodeFrame,
  FRAME_HEADER_BYTES,
  type Frame,
  MalformedFrameError,
  UnframeableError,
} from "./tunnel-frames.js";

/** Close codes the tunnel closes its channel with (the WebSocket protocol's meanings). */
export const TunnelCloseCode = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  PROTOCOL_ERROR: 1002,
  INTERNAL_ERROR: 1011,
} as const;

/** How a link ended: the channel's close code and reason. */
export interface LinkClosed {
  code: number;
  reason: string;
}

export interface FrameHandler {
  /** A well-formed frame other than PING/PONG; throw ProtocolViolation when it is out of place. */
  frame(frame: Frame): void;
  /** The channel closed (either side, any reason); runs once. */
  closed(closed: LinkClosed): void;
}

/** A well-formed frame that breaks the protocol where it arrived (reused id, window overrun). */
export class ProtocolViolation extends MalformedFrameError {}

const encoder = new TextEncoder();

export class FrameLink {
  #closed: LinkClosed | undefined;
  readonly #unsubscribe: (() => void)[] = [];
  /** The largest data chunk of one frame (DATA payload, or a WS_MESSAGE's after its flags). */
  readonly maxChunkBytes: number;

  constructor(
    private readonly channel: MessageChannel,
    private readonly handler: FrameHandler,
  ) {
    this.maxChunkBytes = channel.maxMessageBytes - FRAME_HEADER_BYTES - 1;
    if (this.maxChunkBytes < 1024) {
      throw new UsageError(
        `a channel of ${channel.maxMessageBytes}-byte messages is too small for the tunnel`,
      );
    }
    // Pushed one by one: a channel closed already may call its close listener at once.
    this.#unsubscribe.push(channel.onMessage((message) => this.#receive(message)));
    this.#unsubscribe.push(channel.onClose((code, reason) => this.#end({ code, reason })));
  }

  get isClosed(): boolean {
    return this.#closed !== undefined;
  }

  /**
   * Sends `frame` unless the link closed. Throws UnframeableError when it cannot be framed (a
   * head the peer would refuse, or over the channel's message size): the caller fails that one
   * stream. A channel whose own send throws is closed instead: callers run in event handlers.
   */
  send(frame: Frame): void {
    if (this.#closed !== undefined) return;
    const bytes = encodeFrame(frame);
    if (bytes.byteLength > this.channel.maxMessageBytes) {
      throw new UnframeableError(
        `a ${frame.type} frame of ${bytes.byteLength} bytes is over the channel's ${this.channel.maxMessageBytes}`,
      );
    }
    try {
      this.channel.send(bytes);
    } catch (error) {
      this.close(
        TunnelCloseCode.INTERNAL_ERROR,
        `the channel failed to send: ${describeError(error)}`,
      );
    }
  }

  /** Closes the channel; the handler hears of it at once. */
  close(code: number, reason: string): void {
    if (this.#closed !== undefined) return;
    const clipped = clipUtf8(reason, 123);
    this.#end({ code, reason: clipped });
    this.channel.close(code, clipped);
  }

  #receive(message: Uint8Array): void {
    if (this.#closed !== undefined) return;
    let frame: Frame;
    try {
      frame = decodeFrame(message);
    } catch (error) {
      this.close(TunnelCloseCode.PROTOCOL_ERROR, `tunnel protocol error: ${describeError(error)}`);
      return;
    }
    try {
      if (frame.type === "ping") this.send({ type: "pong", streamId: 0, data: frame.data });
      else if (frame.type !== "pong") this.handler.frame(frame);
    } catch (error) {
      const protocol = error instanceof MalformedFrameError;
      this.close(
        protocol ? TunnelCloseCode.PROTOCOL_ERROR : TunnelCloseCode.INTERNAL_ERROR,
        `${protocol ? "tunnel protocol error" : "tunnel internal error"}: ${describeError(error)}`,
      );
    }
  }

  #end(closed: LinkClosed): void {
    if (this.#closed !== undefined) return;
    this.#closed = closed;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    this.handler.closed(closed);
  }
}

/** `text` cut to at most `maxBytes` of UTF-8 (a WebSocket close reason's bound), whole characters. */
export function clipUtf8(text: string, maxBytes: number): string {
  if (encoder.encode(text).byteLength <= maxBytes) return text;
  let clipped = "";
  let bytes = 0;
  for (const char of text) {
    const size = encoder.encode(char).byteLength;
    if (bytes + size > maxBytes - 3) break;
    clipped += char;
    bytes += size;
  }
  return `${clipped}…`;
}
