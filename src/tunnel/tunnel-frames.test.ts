/** The tunnel's parts without sockets: the frame codec, flow control, the linked pair. */

import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { CreditedSender, ReceiveWindow } from "./flow-control.js";
import { linkedChannelPair } from "./linked-channel-pair.js";
import {
  decodeFrame,
  encodeFrame,
  type Frame,
  MAX_HEAD_BYTES,
  MalformedFrameError,
  UnframeableError,
} from "./tunnel-frames.js";
import { INITIAL_WINDOW_BYTES, WINDOW_GRANT_THRESHOLD_BYTES } from "./tunnel-limits.js";

const bytes = (...values: number[]) => new Uint8Array(values);

const EVERY_KIND: Frame[] = [
  {
    type: "request",
    streamId: 1,
    head: { method: "POST", path: "/v1/x?y=1", headers: [["a", "b"]] },
  },
  { type: "request-data", streamId: 1, data: bytes(1, 2, 3) },
  { type: "request-end", streamId: 1 },
  { type: "response", streamId: 3, head: { status: 204, headers: [] } },
  { type: "response-data", streamId: 3, data: bytes() },
  { type: "response-end", streamId: 3 },
  { type: "reset", streamId: 5, reset: { code: "upgrade-refused", message: "no", status: 401 } },
  { type: "window", streamId: 5, credit: 0xffff_ffff },
  { type: "ws-open", streamId: 7, head: { path: "/ws", headers: [], protocols: ["p1"] } },
  { type: "ws-accepted", streamId: 7, head: { protocol: "p1" } },
  { type: "ws-message", streamId: 7, binary: true, more: true, data: bytes(9) },
  { type: "ws-message", streamId: 7, binary: false, more: false, data: bytes() },
  { type: "ws-close", streamId: 7, code: 4000, reason: "bye ✓" },
  { type: "ping", streamId: 0, data: bytes(1) },
  { type: "pong", streamId: 0, data: bytes(1) },
  { type: "goaway", streamId: 0, reset: { code: "shutdown", message: "restarting" } },
];

describe("tunnel frames", () => {
  it.each(EVERY_KIND.map((frame) => [frame.type, frame] as const))(
    "round-trips a %s frame",
    (_type, frame) => {
      expect(decodeFrame(encodeFrame(frame))).toEqual(frame);
    },
  );

  it("lays a frame out as [u8 type][u32 BE stream id][payload]", () => {
    const encoded = encodeFrame({ type: "window", streamId: 0x01020304, credit: 5 });
    expect([...encoded]).toEqual([0x08, 1, 2, 3, 4, 0, 0, 0, 5]);
  });

  const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  const frameOf = (type: number, streamId: number, payload: Uint8Array) => {
    const frame = new Uint8Array(5 + payload.byteLength);
    frame[0] = type;
    new DataView(frame.buffer).setUint32(1, streamId);
    frame.set(payload, 5);
    return frame;
  };

  it.each([
    ["a truncated header", bytes(1, 0, 0), /shorter than its header/],
    ["an unknown type", frameOf(0xff, 1, bytes()), /unknown frame type 255/],
    ["a stream frame on stream 0", frameOf(0x02, 0, bytes(1)), /stream 0 is for PING/],
    ["a PING on a stream", frameOf(0x0d, 3, bytes()), /stream 0 is for PING/],
    ["a head that is not JSON", frameOf(0x01, 1, json("x").subarray(1)), /not JSON/],
    [
      "a head with a header that could split lines",
      frameOf(0x01, 1, json({ method: "GET", path: "/", headers: [["a", "b\r\nc: d"]] })),
      /REQUEST head is invalid: headers/,
    ],
    [
      "a head whose path is not from the root",
      frameOf(0x01, 1, json({ method: "GET", path: "http://x/", headers: [] })),
      /path/,
    ],
    [
      "a head over the bound",
      frameOf(0x09, 1, new Uint8Array(MAX_HEAD_BYTES + 1).fill(0x20)),
      /over 16384 bytes/,
    ],
    ["a payload on an END", frameOf(0x03, 1, bytes(1)), /has no payload/],
    ["a WINDOW of 0", frameOf(0x08, 1, bytes(0, 0, 0, 0)), /at least one byte/],
    ["a short WINDOW", frameOf(0x08, 1, bytes(0, 1)), /4 bytes/],
    ["unknown WS_MESSAGE flags", frameOf(0x0b, 1, bytes(4, 1)), /flags byte/],
    ["a WS_CLOSE without a code", frameOf(0x0c, 1, bytes(3)), /starts with a code/],
    ["a WS_CLOSE reason not UTF-8", frameOf(0x0c, 1, bytes(3, 232, 0xff)), /not UTF-8/],
    [
      "a response status out of range",
      frameOf(0x04, 1, json({ status: 101, headers: [] })),
      /status/,
    ],
  ])("refuses %s", (_what, frame, message) => {
    expect(() => decodeFrame(frame)).toThrow(MalformedFrameError);
    expect(() => decodeFrame(frame)).toThrow(message);
  });

  it("refuses to encode a head over the bound", () => {
    const headers: [string, string][] = [["x", "v".repeat(MAX_HEAD_BYTES)]];
    expect(() =>
      encodeFrame({ type: "request", streamId: 1, head: { method: "GET", path: "/", headers } }),
    ).toThrow(/the request head of \d+ bytes is over the 16384 allowed/);
  });

  it("refuses to encode a head its peer would refuse", () => {
    const head = { method: "GE T", path: "/", headers: [] };
    expect(() => encodeFrame({ type: "request", streamId: 1, head })).toThrow(UnframeableError);
    const protocols = ["a b"];
    expect(() =>
      encodeFrame({ type: "ws-open", streamId: 1, head: { path: "/", headers: [], protocols } }),
    ).toThrow(/WebSocket open head is invalid: protocols.0/);
  });
});

describe("flow control", () => {
  it("sends up to the credit in chunks of at most a frame, the rest as credit comes", () => {
    const sent: [number, boolean][] = [];
    const sender = new CreditedSender(100_000);
    const all = sender.write(new Uint8Array(INITIAL_WINDOW_BYTES + 10), (chunk, last) =>
      sent.push([chunk.byteLength, last]),
    );
    expect(all).toBe(false);
    expect(sent.reduce((sum, [size]) => sum + size, 0)).toBe(INITIAL_WINDOW_BYTES);
    expect(Math.max(...sent.map(([size]) => size))).toBe(100_000);
    expect(sender.queuedBytes).toBe(10);
    let idle = false;
    sender.onceIdle(() => {
      idle = true;
    });
    sender.write(new Uint8Array(0), (_chunk, last) => sent.push([0, last]));
    sender.grant(5);
    expect(idle).toBe(false);
    sender.grant(5);
    expect(idle).toBe(true);
    expect(sent.slice(-3)).toEqual([
      [5, false],
      [5, true],
      [0, true],
    ]);
  });

  it("grants consumed bytes back in batches and catches an overrun", () => {
    const window = new ReceiveWindow();
    expect(window.take(INITIAL_WINDOW_BYTES)).toBe(true);
    expect(window.take(1)).toBe(false);
    expect(window.consumed(WINDOW_GRANT_THRESHOLD_BYTES - 1)).toBe(0);
    expect(window.consumed(1)).toBe(WINDOW_GRANT_THRESHOLD_BYTES);
    expect(window.take(WINDOW_GRANT_THRESHOLD_BYTES)).toBe(true);
    expect(window.take(1)).toBe(false);
  });
});

describe("linkedChannelPair", () => {
  it("delivers copies in order, later, and closes both ends once", async () => {
    const [a, b] = linkedChannelPair({ maxMessageBytes: 8 });
    const received: number[][] = [];
    b.onMessage((message) => received.push([...message]));
    const sent = bytes(1, 2);
    a.send(sent);
    a.send(bytes(3));
    sent[0] = 9;
    expect(received).toEqual([]);
    expect(a.bufferedAmount).toBe(3);
    expect(() => a.send(new Uint8Array(9))).toThrow(UsageError);
    const closes: string[] = [];
    const bothClosed = Promise.all(
      [a, b].map(
        (end, index) =>
          new Promise<void>((resolve) =>
            end.onClose((code, reason) => {
              closes.push(`${index}:${code}:${reason}`);
              resolve();
            }),
          ),
      ),
    );
    await Promise.resolve();
    expect(received).toEqual([[1, 2], [3]]);
    b.close(4000, "done");
    a.close(1000, "again");
    a.send(bytes(4));
    await bothClosed;
    expect(closes.sort()).toEqual(["0:4000:done", "1:4000:done"]);
    expect(received).toEqual([[1, 2], [3]]);
  });
});
