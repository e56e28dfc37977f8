/**
 * What every typed client does with a transport: send one operation with its location,
 * unwrap `{data}` where the operation wraps, validate the answer; or open a stream and
 * parse each frame. The clients of each protocol version are thin tables over this.
 */
import type { z } from "zod";
import { type Parsed, parseWire, unwrapApiData } from "../opencode-protocol/common.js";
import { parseSafely } from "../opencode-protocol/parse-safely.js";
import type {
  CallOptions,
  SocketTarget,
  StreamOptions,
  Transport,
} from "../transport/transport.js";

/** Options of one call: the bound, the signal and the location (project directory). */
export interface ClientCallOptions extends CallOptions {
  directory?: string;
}
export interface ClientStreamOptions extends StreamOptions {
  directory?: string;
}

export class OperationCaller {
  constructor(
    readonly transport: Transport,
    private readonly defaultDirectory: string | undefined,
  ) {}

  /**
   * Sends `operation`. `input` may be a thunk, so that validating it rejects this promise
   * instead of throwing synchronously.
   */
  async call<S extends z.ZodType>(
    operation: string,
    input: Record<string, unknown> | (() => Record<string, unknown>),
    response: { schema: S; wrapped: boolean },
    options: ClientCallOptions = {},
  ): Promise<z.output<S>> {
    const { directory, ...callOptions } = options;
    const body = await this.transport.request(
      {
        operation,
        input: typeof input === "function" ? input() : input,
        ...this.#location(directory),
      },
      callOptions,
    );
    const what = `${operation} response`;
    // A 204 (undefined) has no wrapper to take off, even on a route whose answers are wrapped.
    const payload = response.wrapped && body !== undefined ? unwrapApiData(body, what) : body;
    return parseWire(response.schema, payload, what);
  }

  /** Opens the stream `operation`; `input` is asked again before every reconnect. */
  async *events<E>(
    operation: string,
    input: () => Record<string, unknown>,
    parse: (raw: unknown) => Parsed<E>,
    options: ClientStreamOptions = {},
  ): AsyncIterable<Parsed<E>> {
    const { directory, ...streamOptions } = options;
    const location = this.#location(directory);
    const frames = this.transport.stream(
      () => ({ operation, input: input(), ...location }),
      streamOptions,
    );
    // A frame the parser refuses outright is kept as unknown: it must not end the stream.
    for await (const frame of frames) yield parseSafely(parse, frame);
  }

  /** Where the WebSocket `operation` connects, or undefined when the transport cannot open one. */
  socketTarget(
    operation: string,
    input: Record<string, unknown>,
    directory: string | undefined,
  ): SocketTarget | undefined {
    return this.transport.socketTarget?.({ operation, input, ...this.#location(directory) });
  }

  #location(directory: string | undefined): { directory?: string } {
    const location = directory ?? this.defaultDirectory;
    return location === undefined ? {} : { directory: location };
  }
}
