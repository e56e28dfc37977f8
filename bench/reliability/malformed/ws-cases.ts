/**
 * Malformed WebSocket traffic to `GET /v1/ws`, each with its documented answer
 * (docs/sidecar-streams.md): frames answered by an `error` message with a code (not JSON,
 * binary, not one of the three messages, an unknown session, a subscription twice or never
 * made), frames that close the socket (over 64 KiB: 1009; more than 20 invalid ones a minute:
 * 1008), and handshakes refused over HTTP (a wrong token or ticket: 401; a foreign Origin: 403;
 * a foreign Host: 421).
 */
import fc from "fast-check";
import { ClientMessageSchema } from "../../../src/wire/ws.js";
import { parses } from "./bodies.js";

/** One frame on a socket subscribed to the target session, and the error code it gets. */
export interface WsFrameCase {
  kind: "ws-message";
  frame: string | Uint8Array;
  code: string;
}

/** A handshake refused with an HTTP status. */
export interface WsHandshakeCase {
  kind: "ws-handshake";
  path: string;
  headers: Record<string, string>;
  status: number;
}

export function wsFrameArbitrary(sessionId: string): fc.Arbitrary<WsFrameCase> {
  const frame = (code: string) => (value: string | Uint8Array) => ({
    kind: "ws-message" as const,
    frame: value,
    code,
  });
  const valid = [
    { type: "subscribe", sessionId, after: 0 },
    { type: "unsubscribe", sessionId },
    { type: "ping", id: "p" },
  ];
  const invalid = fc
    .oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc
        .tuple(
          fc.constantFrom(...valid),
          fc.constantFrom("type", "sessionId", "after", "id", "extra"),
          fc.oneof(
            fc.integer({ min: -5, max: 5 }),
            fc.string({ maxLength: 8 }),
            fc.constant(null),
            fc.double(),
          ),
        )
        .map(([message, key, value]) => ({ ...message, [key]: value })),
    )
    .map((value) => JSON.stringify(value) ?? "null")
    .filter((text) => !ClientMessageSchema.safeParse(JSON.parse(text)).success);
  const otherSession = fc
    .stringMatching(/^ses_[A-Za-z0-9]{6,24}$/)
    .filter((id) => id !== sessionId);
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .string({ maxLength: 60 })
        .filter((text) => !parses(text))
        .map(frame("bad_json")),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map(frame("bad_message")),
    },
    { weight: 4, arbitrary: invalid.map(frame("invalid_message")) },
    {
      weight: 1,
      arbitrary: otherSession
        .map((id) => JSON.stringify({ type: "subscribe", sessionId: id }))
        .map(frame("not_found")),
    },
    {
      weight: 1,
      arbitrary: otherSession
        .map((id) => JSON.stringify({ type: "unsubscribe", sessionId: id }))
        .map(frame("not_subscribed")),
    },
    {
      weight: 1,
      arbitrary: fc
        .nat({ max: 1000 })
        .map((after) => JSON.stringify({ type: "subscribe", sessionId, after }))
        .map(frame("already_subscribed")),
    },
  );
}

export function wsHandshakeArbitrary(target: {
  port: number;
  token: string;
}): fc.Arbitrary<WsHandshakeCase> {
  const auth = { authorization: `Bearer ${target.token}` };
  return fc
    .oneof(
      fc.stringMatching(/^[A-Za-z0-9_-]{0,48}$/).map((token) => ({
        path: "/v1/ws",
        headers: { authorization: `Bearer ${token}` },
        status: 401,
      })),
      fc
        .stringMatching(/^[A-Za-z0-9_-]{1,48}$/)
        .map((ticket) => ({ path: `/v1/ws?ticket=${ticket}`, headers: {}, status: 401 })),
      fc.domain().map((name) => ({
        path: "/v1/ws",
        headers: { ...auth, host: `${name}:${target.port}` },
        status: 421,
      })),
      fc.webUrl().map((url) => ({
        path: "/v1/ws",
        headers: { ...auth, origin: new URL(url).origin },
        status: 403,
      })),
    )
    .map((handshake) => ({ kind: "ws-handshake" as const, ...handshake }));
}
