/**
 * A transport for backend tests that force an interleaving: the test feeds each event stream
 * by hand (recorded native events, in the order it wants), and a request takes the next answer
 * given for its operation (204 when there is none). Not a server: it checks nothing it is sent.
 */

import { readTranscript } from "../../src/transport/transcript/transcript.js";
import type { OperationCall, StreamOptions, Transport } from "../../src/transport/transport.js";
import { ChangeNotifier } from "../../src/util/change-notifier.js";
import { fixturePath } from "./fixture-files.js";

/** The recorded native events of one stream of a 1.18.33 fixture, in order. */
export function recordedEvents(scenario: string, stream: string): Record<string, unknown>[] {
  const path = fixturePath(`opencode-1.18.33/${scenario}.transcript.ndjson`);
  return readTranscript(path).flatMap(({ entry }) =>
    entry.type === "emit_inbound" &&
    entry.frame.type === "sdk.event" &&
    "stream" in entry.frame &&
    entry.frame.stream === stream
      ? [entry.frame.event as Record<string, unknown>]
      : [],
  );
}

export class HandFedTransport implements Transport {
  readonly #queues = new Map<string, unknown[]>();
  readonly #changes = new ChangeNotifier();
  /** Answers by operation, taken in order. */
  readonly answers = new Map<string, unknown[]>();
  /** The operations requested, in order. */
  readonly calls: string[] = [];
  /** The streams opened, in order, with the options each was opened with. */
  readonly opened: { operation: string; options: StreamOptions }[] = [];

  feed(operation: string, events: unknown[]): void {
    const queue = this.#queues.get(operation) ?? [];
    queue.push(...events);
    this.#queues.set(operation, queue);
    this.#changes.notify();
  }

  /** Resolves once the stream's consumer has taken everything fed to `operation`, and acted on it. */
  async drained(operation: string): Promise<void> {
    const empty = () => (this.#queues.get(operation) ?? []).length === 0;
    if (!(await this.#changes.until(empty, { what: `draining ${operation}`, timeoutMs: 5_000 }))) {
      throw new Error(`the ${operation} stream was not read`);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }

  async request(call: OperationCall): Promise<unknown> {
    this.calls.push(call.operation);
    return this.answers.get(call.operation)?.shift();
  }

  async *stream(next: () => OperationCall, options: StreamOptions = {}): AsyncIterable<unknown> {
    const { operation } = next();
    this.opened.push({ operation, options });
    for (;;) {
      const event = this.#queues.get(operation)?.shift();
      if (event !== undefined) {
        this.#changes.notify();
        yield event;
      } else await this.#changes.wait(options.signal, `the ${operation} stream`);
    }
  }
}
