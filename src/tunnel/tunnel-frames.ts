/**
 * The tunnel's frames: each channel message is one frame, `[u8 type][u32 BE streamId][payload]`.
 * Decoding checks everything a peer could get wrong (type, length, stream id, JSON heads against
 * their schemas, UTF-8), so that the sessions above only ever see well-formed frames.
 */
import { z } from "zod";
import { formatIssues, OpencodeBridgeError } from "../errors.js";

/** Bytes before a frame's payload: the type and the stream id. */
export const FRAME_HEADER_BYTES = 5;
/** The largest JSON head (request, response, WebSocket open, reset, goaway). */
export const MAX_HEAD_BYTES = 16 * 1024;
/** The largest PING payload (an opaque token the PONG echoes). */
export const MAX_PING_BYTES = 64;
/** The largest WebSocket close reason, UTF-8 bytes (the WebSocket protocol's own bound). */
export const MAX_CLOSE_REASON_BYTES = 123;

export const FrameType = {
  REQUEST: 0x01,
  REQUEST_DATA: 0x02,
  REQUEST_END: 0x03,
  RESPONSE: 0x04,
  RESPONSE_DATA: 0x05,
  RESPONSE_END: 0x06,
  RESET: 0x07,
  WINDOW: 0x08,
  WS_OPEN: 0x09,
  WS_ACCEPTED: 0x0a,
  WS_MESSAGE: 0x0b,
  WS_CLOSE: 0x0c,
  PING: 0x0d,
  PONG: 0x0e,
  GOAWAY: 0x0f,
} as const;

/** WS_MESSAGE flag: the message is binary (else UTF-8 text). */
const WS_BINARY = 0x01;
/** WS_MESSAGE flag: more fragments of this message follow. */
const WS_MORE = 0x02;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// No CR, LF or NUL: a header value must not be able to start another header upstream.
const HEADER_VALUE = /^[^\r\n\0]*$/;
/** Origin-form: a path from the root and a query, no whitespace or control characters. */
function isOriginForm(path: string): boolean {
  if (!path.startsWith("/")) return false;
  for (let index = 0; index < path.length; index++) {
    const code = path.charCodeAt(index);
    if (code <= 0x20 || code === 0x7f) return false;
  }
  return true;
}
const pathSchema = z.string().max(8192).refine(isOriginForm, "not a path from the root");

const headersSchema = z
  .array(z.tuple([z.string().regex(TOKEN), z.string().regex(HEADER_VALUE)]))
  .max(256);

const requestHeadSchema = z.object({
  method: z.string().regex(TOKEN).max(32),
  path: pathSchema,
  headers: headersSchema,
});
const responseHeadSchema = z.object({
  status: z.number().int().min(200).max(599),
  headers: headersSchema,
});
const wsOpenHeadSchema = z.object({
  path: pathSchema,
  headers: headersSchema,
  protocols: z.array(z.string().regex(TOKEN)).max(32),
});
const wsAcceptedHeadSchema = z.object({ protocol: z.string().max(256) });
const resetSchema = z.object({
  code: z.string().max(64),
  message: z.string().max(1024),
  status: z.number().int().min(100).max(599).optional(),
});

/** One header line as it travels: name and value. */
export type HeaderPair = [name: string, value: string];
export type RequestHead = z.output<typeof requestHeadSchema>;
export type ResponseHead = z.output<typeof responseHeadSchema>;
export type WsOpenHead = z.output<typeof wsOpenHeadSchema>;
export type WsAcceptedHead = z.output<typeof wsAcceptedHeadSchema>;
/** Why a stream was aborted; `status` when an upstream answered (a refused upgrade). */
export type ResetInfo = z.output<typeof resetSchema>;

/** A decoded frame. */
export type Frame =
  | { type: "request"; streamId: number; head: RequestHead }
  | { type: "request-data"; streamId: number; data: Uint8Array }
  | { type: "request-end"; streamId: number }
  | { type: "response"; streamId: number; head: ResponseHead }
  | { type: "response-data"; streamId: number; data: Uint8Array }
  | { type: "response-end"; streamId: number }
  | { type: "reset"; streamId: number; reset: ResetInfo }
  | { type: "window"; streamId: number; credit: number }
  | { type: "ws-open"; streamId: number; head: WsOpenHead }
  | { type: "ws-accepted"; streamId: number; head: WsAcceptedHead }
  | { type: "ws-message"; streamId: number; binary: boolean; more: boolean; data: Uint8Array }
  | { type: "ws-close"; streamId: number; code: number; reason: string }
  | { type: "ping"; streamId: 0; data: Uint8Array }
  | { type: "pong"; streamId: 0; data: Uint8Array }
  | { type: "goaway"; streamId: 0; reset: ResetInfo };

/** A frame this side cannot send: a head its peer would refuse, or one too large. */
export class UnframeableError extends OpencodeBridgeError {}

/** A frame the peer got wrong: what was wrong with it. */
export class MalformedFrameError extends OpencodeBridgeError {}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The bytes of one frame. A head is checked against the schema its receiver decodes with
 * (strict for what we send): one the peer would refuse throws UnframeableError here, failing
 * one stream, rather than reaching the peer and closing the whole channel.
 */
export function encodeFrame(frame: Frame): Uint8Array {
  const payload = payloadOf(frame);
  const bytes = new Uint8Array(FRAME_HEADER_BYTES + payload.byteLength);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, FrameType[typeKeyOf(frame.type)]);
  view.setUint32(1, frame.streamId);
  bytes.set(payload, FRAME_HEADER_BYTES);
  return bytes;
}

function payloadOf(frame: Frame): Uint8Array {
  switch (frame.type) {
    case "request":
      return headBytes(requestHeadSchema, frame.head, "request");
    case "response":
      return headBytes(responseHeadSchema, frame.head, "response");
    case "ws-open":
      return headBytes(wsOpenHeadSchema, frame.head, "WebSocket open");
    case "ws-accepted":
      return headBytes(wsAcceptedHeadSchema, frame.head, "WebSocket acceptance");
    case "reset":
    case "goaway":
      return headBytes(resetSchema, frame.reset, frame.type);
    case "request-data":
    case "response-data":
    case "ping":
    case "pong":
      return frame.data;
    case "request-end":
    case "response-end":
      return new Uint8Array(0);
    case "window": {
      const bytes = new Uint8Array(4);
      new DataView(bytes.buffer).setUint32(0, frame.credit);
      return bytes;
    }
    case "ws-message": {
      const bytes = new Uint8Array(1 + frame.data.byteLength);
      bytes[0] = (frame.binary ? WS_BINARY : 0) | (frame.more ? WS_MORE : 0);
      bytes.set(frame.data, 1);
      return bytes;
    }
    case "ws-close": {
      const reason = encoder.encode(frame.reason);
      const bytes = new Uint8Array(2 + reason.byteLength);
      new DataView(bytes.buffer).setUint16(0, frame.code);
      bytes.set(reason, 2);
      return bytes;
    }
  }
}

function headBytes(schema: z.ZodType, head: unknown, what: string): Uint8Array {
  const checked = schema.safeParse(head);
  if (!checked.success) {
    throw new UnframeableError(
      `the ${what} head is invalid: ${formatIssues(checked.error.issues)}`,
    );
  }
  const bytes = encoder.encode(JSON.stringify(head));
  if (bytes.byteLength > MAX_HEAD_BYTES) {
    throw new UnframeableError(
      `the ${what} head of ${bytes.byteLength} bytes is over the ${MAX_HEAD_BYTES} allowed`,
    );
  }
  return bytes;
}

const TYPE_KEYS = {
  request: "REQUEST",
  "request-data": "REQUEST_DATA",
  "request-end": "REQUEST_END",
  response: "RESPONSE",
  "response-data": "RESPONSE_DATA",
  "response-end": "RESPONSE_END",
  reset: "RESET",
  window: "WINDOW",
  "ws-open": "WS_OPEN",
  "ws-accepted": "WS_ACCEPTED",
  "ws-message": "WS_MESSAGE",
  "ws-close": "WS_CLOSE",
  ping: "PING",
  pong: "PONG",
  goaway: "GOAWAY",
} as const satisfies Record<Frame["type"], keyof typeof FrameType>;

function typeKeyOf(type: Frame["type"]): keyof typeof FrameType {
  return TYPE_KEYS[type];
}

/** The frame in `bytes`; throws MalformedFrameError saying what is wrong with it. */
export function decodeFrame(bytes: Uint8Array): Frame {
  if (bytes.byteLength < FRAME_HEADER_BYTES) {
    throw new MalformedFrameError(
      `a frame of ${bytes.byteLength} bytes is shorter than its header`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = view.getUint8(0);
  const streamId = view.getUint32(1);
  const payload = bytes.subarray(FRAME_HEADER_BYTES);
  const connectionLevel =
    type === FrameType.PING || type === FrameType.PONG || type === FrameType.GOAWAY;
  if (connectionLevel !== (streamId === 0)) {
    throw new MalformedFrameError(
      `frame type ${type} on stream ${streamId}: stream 0 is for PING, PONG and GOAWAY only`,
    );
  }
  switch (type) {
    case FrameType.REQUEST:
      return { type: "request", streamId, head: parseHead(requestHeadSchema, payload, "REQUEST") };
    case FrameType.REQUEST_DATA:
      return { type: "request-data", streamId, data: payload };
    case FrameType.REQUEST_END:
      expectEmpty(payload, "REQUEST_END");
      return { type: "request-end", streamId };
    case FrameType.RESPONSE:
      return {
        type: "response",
        streamId,
        head: parseHead(responseHeadSchema, payload, "RESPONSE"),
      };
    case FrameType.RESPONSE_DATA:
      return { type: "response-data", streamId, data: payload };
    case FrameType.RESPONSE_END:
      expectEmpty(payload, "RESPONSE_END");
      return { type: "response-end", streamId };
    case FrameType.RESET:
      return { type: "reset", streamId, reset: parseHead(resetSchema, payload, "RESET") };
    case FrameType.WINDOW: {
      if (payload.byteLength !== 4) throw new MalformedFrameError("a WINDOW payload is 4 bytes");
      const credit = new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0);
      if (credit === 0) throw new MalformedFrameError("a WINDOW grants at least one byte");
      return { type: "window", streamId, credit };
    }
    case FrameType.WS_OPEN:
      return { type: "ws-open", streamId, head: parseHead(wsOpenHeadSchema, payload, "WS_OPEN") };
    case FrameType.WS_ACCEPTED:
      return {
        type: "ws-accepted",
        streamId,
        head: parseHead(wsAcceptedHeadSchema, payload, "WS_ACCEPTED"),
      };
    case FrameType.WS_MESSAGE: {
      const flags = payload[0];
      if (flags === undefined || (flags & ~(WS_BINARY | WS_MORE)) !== 0) {
        throw new MalformedFrameError("a WS_MESSAGE starts with a flags byte of bits 0 and 1 only");
      }
      return {
        type: "ws-message",
        streamId,
        binary: (flags & WS_BINARY) !== 0,
        more: (flags & WS_MORE) !== 0,
        data: payload.subarray(1),
      };
    }
    case FrameType.WS_CLOSE: {
      if (payload.byteLength < 2) throw new MalformedFrameError("a WS_CLOSE starts with a code");
      const code = new DataView(payload.buffer, payload.byteOffset, 2).getUint16(0);
      const reasonBytes = payload.subarray(2);
      if (reasonBytes.byteLength > MAX_CLOSE_REASON_BYTES) {
        throw new MalformedFrameError(
          `a WS_CLOSE reason is at most ${MAX_CLOSE_REASON_BYTES} bytes`,
        );
      }
      return { type: "ws-close", streamId, code, reason: utf8(reasonBytes, "WS_CLOSE reason") };
    }
    case FrameType.PING:
    case FrameType.PONG: {
      if (payload.byteLength > MAX_PING_BYTES) {
        throw new MalformedFrameError(`a PING or PONG carries at most ${MAX_PING_BYTES} bytes`);
      }
      return { type: type === FrameType.PING ? "ping" : "pong", streamId: 0, data: payload };
    }
    case FrameType.GOAWAY:
      return { type: "goaway", streamId: 0, reset: parseHead(resetSchema, payload, "GOAWAY") };
    default:
      throw new MalformedFrameError(`unknown frame type ${type}`);
  }
}

function expectEmpty(payload: Uint8Array, what: string): void {
  if (payload.byteLength !== 0) throw new MalformedFrameError(`a ${what} has no payload`);
}

function utf8(bytes: Uint8Array, what: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new MalformedFrameError(`the ${what} is not UTF-8`);
  }
}

function parseHead<S extends z.ZodType>(schema: S, payload: Uint8Array, what: string): z.output<S> {
  if (payload.byteLength > MAX_HEAD_BYTES) {
    throw new MalformedFrameError(`the ${what} head is over ${MAX_HEAD_BYTES} bytes`);
  }
  let json: unknown;
  try {
    json = JSON.parse(utf8(payload, `${what} head`));
  } catch (error) {
    if (error instanceof MalformedFrameError) throw error;
    throw new MalformedFrameError(`the ${what} head is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new MalformedFrameError(
      `the ${what} head is invalid: ${formatIssues(parsed.error.issues)}`,
    );
  }
  return parsed.data;
}
