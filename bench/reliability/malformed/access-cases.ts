/**
 * Requests the security checks refuse before anything else: a token that is missing or wrong
 * (401), a `Host` that is not the sidecar's (421), an `Origin` not allowed (403).
 */
import fc from "fast-check";
import { expecting, type HttpCase, type Target } from "./http-case.js";

/** Any route, with a token that is missing, wrong, in another scheme, or cut or padded. */
export function badToken(target: Target): fc.Arbitrary<HttpCase> {
  const authorization = fc.oneof(
    fc.constant(undefined),
    fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/).map((token) => `Bearer ${token}`),
    fc.constant(`Basic ${Buffer.from(`opencode:${target.token}`).toString("base64")}`),
    fc.constant(`Token ${target.token}`),
    fc.constant(target.token),
    fc.constant("Bearer"),
    fc.constant(`Bearer ${target.token.slice(0, -1)}`),
    fc.constant(`Bearer ${target.token}x`),
    fc.constant(`Bearer ${target.token} ${target.token}`),
  );
  const route = fc.constantFrom(
    { method: "GET", path: "/v1/sessions" },
    { method: "POST", path: "/v1/sessions" },
    { method: "POST", path: "/v1/tickets" },
    { method: "GET", path: "/metrics" },
    { method: "GET", path: "/v1/openapi.json" },
    { method: "GET", path: `/v1/sessions/${target.sessionId}/transcript` },
    { method: "GET", path: `/v1/sessions/${target.sessionId}/events?ticket=bogus` },
    { method: "GET", path: `/v1/ws?ticket=${"t".repeat(43)}` },
    { method: "POST", path: `/v1/sessions/${target.sessionId}/interrupt` },
    { method: "GET", path: `/v1/sessions/${target.sessionId}/events?token=${target.token}` },
  );
  return fc.tuple(route, authorization).map(([{ method, path }, header]) => ({
    kind: "token",
    method,
    path,
    headers: header === undefined ? {} : { authorization: header },
    expect: expecting("unauthorized"),
  }));
}

export function foreignHost(target: Target): fc.Arbitrary<HttpCase> {
  const host = fc.oneof(
    fc.domain().map((name) => `${name}:${target.port}`),
    fc.domain(),
    fc.constantFrom(
      "localhost",
      "127.0.0.1",
      `127.0.0.2:${target.port}`,
      `localhost:${target.port + 1}`,
      `[::2]:${target.port}`,
      `127.0.0.1.nip.io:${target.port}`,
    ),
  );
  return fc.tuple(host, fc.boolean()).map(([value, withToken]) => ({
    kind: "bad-host",
    method: "GET",
    path: "/v1/sessions",
    headers: { host: value, ...(withToken ? { authorization: `Bearer ${target.token}` } : {}) },
    expect: expecting("bad_host"),
  }));
}

export function foreignOrigin(target: Target): fc.Arbitrary<HttpCase> {
  const origin = fc.oneof(
    fc.webUrl().map((url) => new URL(url).origin),
    fc.constantFrom(
      "null",
      `http://127.0.0.1:${target.port + 1}`,
      `https://127.0.0.1:${target.port}`,
      "http://localhost",
      `http://evil.example:${target.port}`,
      "file://",
    ),
  );
  return fc.tuple(origin, fc.constantFrom("GET", "OPTIONS", "POST")).map(([value, method]) => ({
    kind: "bad-origin",
    method,
    path: method === "POST" ? "/v1/tickets" : "/v1/sessions",
    headers: {
      origin: value,
      authorization: `Bearer ${target.token}`,
      ...(method === "OPTIONS" ? { "access-control-request-method": "POST" } : {}),
    },
    expect: expecting("bad_origin"),
  }));
}
