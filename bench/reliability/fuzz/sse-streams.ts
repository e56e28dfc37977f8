/**
 * The streams the SSE half of the fuzz reads through: each one as its backend opens it, a typed
 * client over the real `HttpTransport`, whose `fetch` serves the case's bytes once. What the
 * transport hands the client is recorded too, so that the reader and the client are each
 * checked against what was written.
 */

import { AbortError } from "../../../src/errors.js";
import { OpencodeClient } from "../../../src/opencode-client/opencode-client.js";
import { Opencode2Client } from "../../../src/opencode-client/opencode2-client.js";
import type { Parsed } from "../../../src/opencode-protocol/common.js";
import { HttpTransport } from "../../../src/transport/http-transport.js";
import type { Transport } from "../../../src/transport/transport.js";
import type { Surface } from "./seed-frames.js";

/** `/api` live and durable (per session), legacy `/event`, 2.0's event stream. */
export type StreamKind = "api-live" | "api-durable" | "legacy" | "v2";

type Open = (transport: Transport, signal: AbortSignal) => AsyncIterable<Parsed<unknown>>;

export const STREAMS: Readonly<Record<StreamKind, { surface: Surface; open: Open }>> = {
  "api-live": {
    surface: "api",
    open: (transport, signal) => new OpencodeClient(transport).v2.event.subscribe({ signal }),
  },
  "api-durable": {
    surface: "api",
    open: (transport, signal) =>
      new OpencodeClient(transport).v2.session.events({ sessionID: "ses_fuzz" }, { signal }),
  },
  legacy: {
    surface: "legacy",
    open: (transport, signal) => new OpencodeClient(transport).event.subscribe({ signal }),
  },
  v2: {
    surface: "v2",
    open: (transport, signal) => new Opencode2Client(transport).event.subscribe({ signal }),
  },
};

/** A `fetch` that serves `chunks` once as an event stream, then aborts `stop`. */
function servingOnce(chunks: readonly Uint8Array[], stop: AbortController): typeof fetch {
  let served = false;
  return async () => {
    if (served) {
      stop.abort();
      throw new Error("served once");
    }
    served = true;
    let next = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const chunk = chunks[next++];
          if (chunk !== undefined) return controller.enqueue(chunk);
          controller.close();
          // The reader sees the end, and yields what it completes, in this turn's microtasks;
          // then it would wait out a reconnect delay: the abort ends it first.
          setImmediate(() => stop.abort());
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
}

/** What the transport yielded (decoded frames), and what the client made of them. */
export interface StreamRead {
  frames: unknown[];
  parsed: Parsed<unknown>[];
}

/** Reads `chunks` as `kind`'s stream to its end. */
export async function readStream(
  kind: StreamKind,
  chunks: readonly Uint8Array[],
): Promise<StreamRead> {
  const stop = new AbortController();
  const http = new HttpTransport({ url: "http://fuzz.invalid", fetch: servingOnce(chunks, stop) });
  const read: StreamRead = { frames: [], parsed: [] };
  const recording: Transport = {
    request: (call, options) => http.request(call, options),
    stream: async function* (next, options) {
      for await (const frame of http.stream(next, options)) {
        read.frames.push(frame);
        yield frame;
      }
    },
  };
  try {
    for await (const parsed of STREAMS[kind].open(recording, stop.signal)) read.parsed.push(parsed);
  } catch (error) {
    if (!(error instanceof AbortError)) throw error;
  }
  return read;
}
