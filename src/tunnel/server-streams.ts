/**
 * The server side's bookkeeping of the client's streams: the ids it may use, the bound on open
 * streams, which frames the client may send at all, and the routing of the rest.
 */
import type { FrameHandler, FrameLink, LinkClosed } from "./frame-link.js";
import { ProtocolViolation } from "./frame-link.js";
import type { Frame, RequestHead, WsOpenHead } from "./tunnel-frames.js";
import type { TunnelLimits } from "./tunnel-limits.js";

/** One request or WebSocket the client opened, fed its frames. */
export interface ServerStream {
  /** Opens the upstream side (the stream is registered by then). */
  start(): void;
  /** A frame of this stream; throws ProtocolViolation when it is out of place. */
  frame(frame: Frame): void;
  /** The channel closed, or the server is closing: end everything upstream now. */
  destroy(): void;
}

/** What a stream needs of the server side. */
export interface ServerStreamHost {
  readonly maxChunkBytes: number;
  readonly limits: TunnelLimits;
  send(frame: Frame): void;
  /** The stream is over: its frames still in flight are ignored. */
  finish(streamId: number): void;
}

export interface ServerStreamFactory {
  request(host: ServerStreamHost, streamId: number, head: RequestHead): ServerStream;
  webSocket(host: ServerStreamHost, streamId: number, head: WsOpenHead): ServerStream;
}

export class ServerStreams implements ServerStreamHost, FrameHandler {
  #link: FrameLink | undefined;
  readonly #streams = new Map<number, ServerStream>();
  #lastId = 0;

  constructor(
    readonly limits: TunnelLimits,
    private readonly factory: ServerStreamFactory,
    private readonly onClosed: (closed: LinkClosed) => void,
  ) {}

  attach(link: FrameLink): void {
    this.#link = link;
  }

  get maxChunkBytes(): number {
    return this.#link?.maxChunkBytes ?? 1024;
  }

  get openStreams(): number {
    return this.#streams.size;
  }

  send(frame: Frame): void {
    this.#link?.send(frame);
  }

  finish(streamId: number): void {
    this.#streams.delete(streamId);
  }

  frame(frame: Frame): void {
    switch (frame.type) {
      case "request":
      case "ws-open":
        this.#open(frame);
        return;
      case "response":
      case "response-data":
      case "response-end":
      case "ws-accepted":
      case "goaway":
        throw new ProtocolViolation(`a ${frame.type} frame, which only the server side sends`);
      default:
        if (frame.streamId % 2 === 0 || frame.streamId > this.#lastId) {
          throw new ProtocolViolation(
            `a ${frame.type} frame for stream ${frame.streamId}, which the client never opened`,
          );
        }
        // A stream already over on this side: the client's frames in flight are dropped.
        this.#streams.get(frame.streamId)?.frame(frame);
    }
  }

  closed(closed: LinkClosed): void {
    const streams = [...this.#streams.values()];
    this.#streams.clear();
    for (const stream of streams) stream.destroy();
    this.onClosed(closed);
  }

  #open(frame: Extract<Frame, { type: "request" | "ws-open" }>): void {
    const id = frame.streamId;
    if (id % 2 === 0 || id <= this.#lastId) {
      throw new ProtocolViolation(
        `stream id ${id} reused or out of order (client ids are odd and increasing; last was ${this.#lastId})`,
      );
    }
    this.#lastId = id;
    if (this.#streams.size >= this.limits.maxConcurrentStreams) {
      this.send({
        type: "reset",
        streamId: id,
        reset: {
          code: "too-many-streams",
          message: `the tunnel's server allows ${this.limits.maxConcurrentStreams} open streams`,
        },
      });
      return;
    }
    const stream =
      frame.type === "request"
        ? this.factory.request(this, id, frame.head)
        : this.factory.webSocket(this, id, frame.head);
    // Kept before it starts: a stream that fails at once finishes itself from the map.
    this.#streams.set(id, stream);
    stream.start();
  }
}
