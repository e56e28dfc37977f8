/**
 * A transport that records everything passing through another one as a transcript: each
 * call, its answer, each stream (re)connect and every event the consumer read, in the order
 * they happened, with the working directory replaced by `"<work>"` and secrets redacted.
 * The result replays through `ReplayTransport`.
 */
import { writeFileSync } from "node:fs";
import { AbortError, ConnectionError, OpencodeApiError, TimeoutError } from "../../errors.js";
import type { CallOptions, OperationCall, StreamOptions, Transport } from "../transport.js";
import { HANG } from "./replay-transport.js";
import { sanitize } from "./sanitize.js";
import { formatTranscript, type TranscriptEntry } from "./transcript.js";

export interface RecordingOptions {
  /** The working directory of the session; recorded as `"<work>"`. */
  directory: string;
  /** Values that must not reach the file (the server password, provider keys, …). */
  secrets?: readonly string[];
  /** `transcript_start` fields. */
  scenario: string;
  version: string;
  protocol?: string;
  metadata?: Record<string, unknown>;
  /** Clock for `afterMs` (tests inject one). */
  now?: () => number;
}

export class RecordingTransport implements Transport {
  readonly #inner: Transport;
  readonly #options: RecordingOptions;
  readonly #entries: TranscriptEntry[] = [];
  readonly #now: () => number;
  #last: number;

  constructor(inner: Transport, options: RecordingOptions) {
    this.#inner = inner;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#last = this.#now();
    this.#entries.push({
      type: "transcript_start",
      provider: "opencode",
      protocol: options.protocol ?? "opencode-http.sse",
      version: options.version,
      scenario: options.scenario,
      metadata: this.#clean({ recordedBy: "opencode-bridge", ...options.metadata }) as Record<
        string,
        unknown
      >,
    });
  }

  async request(call: OperationCall, options?: CallOptions): Promise<unknown> {
    this.#recordCall(call);
    try {
      const body = await this.#inner.request(call, options);
      this.#recordResponse(call.operation, body === undefined ? null : body);
      return body;
    } catch (error) {
      if (error instanceof OpencodeApiError) {
        this.#recordResponse(call.operation, { status: error.status, body: error.body ?? null });
      } else if (
        error instanceof TimeoutError ||
        error instanceof AbortError ||
        error instanceof ConnectionError
      ) {
        // No answer came: replayed, the call waits for its own bound or signal.
        this.#recordResponse(call.operation, HANG);
      }
      throw error;
    }
  }

  async *stream(next: () => OperationCall, options?: StreamOptions): AsyncIterable<unknown> {
    let operation = "";
    const recordedNext = (): OperationCall => {
      const call = next();
      operation = call.operation;
      this.#recordCall(call);
      return call;
    };
    for await (const frame of this.#inner.stream(recordedNext, options)) {
      const type = (frame as { type?: unknown } | null)?.type;
      this.#push({
        type: "emit_inbound",
        label: typeof type === "string" ? type : "event",
        frame: { type: "sdk.event", event: this.#clean(frame), stream: operation },
        ...this.#afterMs(),
      });
      yield frame;
    }
  }

  /** Ends the transcript with `runtime_exit`; returns all entries. */
  finish(status: "success" | "error" | "cancelled" = "success"): TranscriptEntry[] {
    if (this.#entries.at(-1)?.type !== "runtime_exit") {
      this.#entries.push({ type: "runtime_exit", status });
    }
    return [...this.#entries];
  }

  /** The entries so far. */
  get entries(): readonly TranscriptEntry[] {
    return this.#entries;
  }

  /** Finishes and writes the transcript as NDJSON. */
  write(path: string, status?: "success" | "error" | "cancelled"): void {
    writeFileSync(path, formatTranscript(this.finish(status)));
  }

  #recordCall(call: OperationCall): void {
    this.#afterMs(); // the next answer's afterMs counts from this call
    this.#push({
      type: "expect_outbound",
      label: call.operation,
      frame: {
        type: call.operation,
        ...(call.input === undefined ? {} : { input: this.#clean(call.input) }),
        ...(call.directory === undefined
          ? {}
          : { directory: this.#clean(call.directory) as string }),
      },
    });
  }

  #recordResponse(operation: string, data: unknown): void {
    this.#push({
      type: "emit_inbound",
      label: `${operation}.response`,
      frame: { type: "sdk.response", operation, data: this.#clean(data) },
      ...this.#afterMs(),
    });
  }

  #push(entry: TranscriptEntry): void {
    this.#entries.push(entry);
  }

  #afterMs(): { afterMs?: number } {
    const now = this.#now();
    const afterMs = Math.max(0, Math.round(now - this.#last));
    this.#last = now;
    return afterMs > 0 ? { afterMs } : {};
  }

  #clean(value: unknown): unknown {
    return sanitize(value, {
      directory: this.#options.directory,
      secrets: this.#options.secrets ?? [],
    });
  }
}
