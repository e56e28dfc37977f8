/** The slow-consumer policy as a subscription applies it: drop ephemeral, never durable, then disconnect. */
import { describe, expect, it } from "vitest";
import { canonicalEvent } from "../../../test/support/canonical-event.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { FeedEnd } from "./feed-types.js";
import { OutboundStream, type StreamOutput } from "./outbound-stream.js";
import { slowConsumerReason } from "./slow-consumer.js";
import { noStreamMetrics, type StreamMetrics } from "./stream-metrics.js";

const bounds = { dropEphemeralAbove: 100, disconnectAbove: 1000 };

class FakeOutput implements StreamOutput {
  backlog = 0;
  readonly written: unknown[] = [];
  unsent(): number {
    return this.backlog;
  }
  event(event: CanonicalEvent): void {
    this.written.push(event.durable ? `durable ${event.seq}` : `ephemeral ${event.type}`);
  }
  caughtUp(seq: number): void {
    this.written.push(`caught-up ${seq}`);
  }
  dropped(count: number): void {
    this.written.push(`dropped ${count}`);
  }
  ended(end: FeedEnd): void {
    this.written.push(`ended ${end.reason}`);
  }
  overloaded(lastSeq: number | undefined): void {
    this.written.push(`overloaded ${lastSeq}`);
  }
}

let seq = 0;
const durable = () => ({ ...canonicalEvent("turn_1", "turn.started", {}), seq: ++seq });
const delta = () => canonicalEvent("turn_1", "text.delta", { partId: "p", delta: "x" });

function counting(): StreamMetrics & { counts: Record<string, number> } {
  const counts: Record<string, number> = {};
  const count = (name: string) => () => {
    counts[name] = (counts[name] ?? 0) + 1;
  };
  return {
    counts,
    clientConnected: count("connected"),
    clientDisconnected: count("disconnected"),
    eventSent: count("sent"),
    ephemeralDropped: count("dropped"),
    slowConsumerDisconnected: count("slow"),
  };
}

describe("OutboundStream", () => {
  it("skips ephemeral events past the first bound and says how many before the next event", () => {
    const output = new FakeOutput();
    const metrics = counting();
    const stream = new OutboundStream({ output, bounds, metrics, transport: "ws", after: 0 });
    seq = 0;
    stream.event(durable());
    output.backlog = 500;
    stream.event(delta());
    stream.event(delta());
    stream.event(durable()); // durable: written however far behind (below the second bound)
    stream.event(delta());
    output.backlog = 0;
    stream.event(delta());
    expect(output.written).toEqual([
      "durable 1",
      "dropped 2",
      "durable 2",
      "dropped 1",
      "ephemeral text.delta",
    ]);
    expect(metrics.counts).toEqual({ sent: 3, dropped: 3 });
    expect(stream.lastSeq).toBe(2);
  });

  it("past the second bound asks for a disconnect naming the last seq written, then writes nothing", () => {
    const output = new FakeOutput();
    const metrics = counting();
    const stream = new OutboundStream({ output, bounds, metrics, transport: "sse", after: 7 });
    seq = 7;
    stream.caughtUp(7);
    stream.event(durable());
    output.backlog = 1001;
    stream.event(durable());
    stream.event(durable());
    stream.ended({ reason: "session-closed" });
    expect(output.written).toEqual(["caught-up 7", "durable 8", "overloaded 8"]);
    expect(metrics.counts).toEqual({ sent: 1, slow: 1 });
    expect(slowConsumerReason(8)).toBe("slow consumer: resume from seq 8");
  });

  it("tells a client that resumed and got nothing its own seq", () => {
    const output = new FakeOutput();
    const stream = new OutboundStream({
      output,
      bounds,
      metrics: noStreamMetrics,
      transport: "ws",
      after: 3,
    });
    output.backlog = 5000;
    stream.event(delta());
    expect(output.written).toEqual(["overloaded 3"]);
  });
});
