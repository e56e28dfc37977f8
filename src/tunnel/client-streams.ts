/**
 * The client side's bookkeeping of its streams, shared by its fetch and its WebSocket: ids,
 * the bound on open streams, routing of the server's frames, and the end of the channel.
 */
import type { FrameHandler, FrameLink, LinkClosed } from "./frame-link.js";
import { ProtocolViolation } from "./frame-link.js";
import type { Frame, ResetInfo } from "./tunnel-frames.js";
import type { TunnelLimits } from "./tunnel-limits.js";

/** One request or WebSocket of the client, fed the server's frames for it. */
export interface ClientStream {
  /** A frame of this stream; throws ProtocolViolation when it is out of place. */
  frame(frame: Frame): void;
  /** The channel closed with the stream still open. */
  channelClosed(closed: LinkClosed): void;
}

/** What a fetch or a WebSocket needs of the client side. */
export interface StreamHost {
  readonly maxChunkBytes: number;
  readonly limits: TunnelLimits;
  /** Registers `stream` under a new id, or says why no stream can open now. */
  open(stream: ClientStream): { id: number } | { refused: string };
  send(frame: Frame): void;
  /** The stream is over on both sides: its frames still in flight are ignored. */
  finish(streamId: number): void;
}

export class ClientStreams implements StreamHost, FrameHandler {
  #link: FrameLink | undefined;
  readonly #streams = new Map<number, ClientStream>();
  // Client ids are odd and increasing, so an id is never reused and the server can tell a
  // late frame of a finished stream from one of a stream that never was.
  #lastId = -1;
  #closed: LinkClosed | undefined;
  #goaway: ResetInfo | undefined;
  readonly #closedListeners: ((closed: LinkClosed) => void)[] = [];

  constructor(readonly limits: TunnelLimits) {}

  attach(link: FrameLink): void {
    this.#link = link;
  }

  get maxChunkBytes(): number {
    return this.#link?.maxChunkBytes ?? 1024;
  }

  get closedWith(): LinkClosed | undefined {
    return this.#closed;
  }

  onClosed(listener: (closed: LinkClosed) => void): void {
    if (this.#closed) listener(this.#closed);
    else this.#closedListeners.push(listener);
  }

  open(stream: ClientStream): { id: number } | { refused: string } {
    if (this.#closed)
      return { refused: `tunnel closed: ${this.#closed.reason || this.#closed.code}` };
    if (this.#goaway)
      return { refused: `the tunnel's server is going away: ${this.#goaway.message}` };
    if (this.#streams.size >= this.limits.maxConcurrentStreams) {
      return {
        refused:
          `the tunnel has ${this.#streams.size} streams open, its maxConcurrentStreams; ` +
          "wait for one to finish (or raise the limit on both sides)",
      };
    }
    this.#lastId += 2;
    this.#streams.set(this.#lastId, stream);
    return { id: this.#lastId };
  }

  send(frame: Frame): void {
    this.#link?.send(frame);
  }

  finish(streamId: number): void {
    this.#streams.delete(streamId);
  }

  frame(frame: Frame): void {
    switch (frame.type) {
      case "goaway":
        this.#goaway = frame.reset;
        return;
      case "request":
      case "request-data":
      case "request-end":
      case "ws-open":
        throw new ProtocolViolation(`a ${frame.type} frame, which only the client side sends`);
    }
    if (frame.streamId % 2 === 0 || frame.streamId > this.#lastId) {
      throw new ProtocolViolation(
        `a frame for stream ${frame.streamId}, which the client never opened`,
      );
    }
    // A stream this side already finished: its frames in flight are expected, and dropped.
    this.#streams.get(frame.streamId)?.frame(frame);
  }

  closed(closed: LinkClosed): void {
    this.#closed = closed;
    const streams = [...this.#streams.values()];
    this.#streams.clear();
    for (const stream of streams) stream.channelClosed(closed);
    for (const listener of this.#closedListeners.splice(0)) listener(closed);
  }
}
