/**
 * The sidecar's security checks, request by request (`app.inject()`, no OpenCode): token,
 * Host, Origin, tickets; and that no secret reaches the log.
 */
import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { recordingLogger } from "../../test/support/recording-logger.js";
import {
  AUTH,
  type SidecarHarness,
  sidecarHarness,
  TOKEN,
} from "../../test/support/sidecar-harness.js";
import { lineLogger } from "./log-lines.js";
import { hasToken, securityHook } from "./security.js";

const harnesses: SidecarHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

function harness(options: Parameters<typeof sidecarHarness>[0] = {}): SidecarHarness {
  const made = sidecarHarness(options);
  harnesses.push(made);
  return made;
}

interface Case {
  name: string;
  headers: Record<string, string>;
  status: number;
  code?: string;
}

const CASES: Case[] = [
  { name: "no token", headers: {}, status: 401, code: "unauthorized" },
  {
    name: "wrong token",
    headers: { authorization: "Bearer wrong-token-0123456789" },
    status: 401,
    code: "unauthorized",
  },
  {
    name: "the token as a prefix",
    headers: { authorization: `Bearer ${TOKEN}x` },
    status: 401,
    code: "unauthorized",
  },
  {
    name: "a cut token",
    headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
    status: 401,
    code: "unauthorized",
  },
  {
    name: "Basic instead of Bearer",
    headers: { authorization: `Basic ${TOKEN}` },
    status: 401,
    code: "unauthorized",
  },
  { name: "the token", headers: { ...AUTH }, status: 200 },
  { name: "bearer in lower case", headers: { authorization: `bearer ${TOKEN}` }, status: 200 },
  {
    name: "a foreign Origin",
    headers: { ...AUTH, origin: "http://evil.example" },
    status: 403,
    code: "bad_origin",
  },
  { name: "Origin null", headers: { ...AUTH, origin: "null" }, status: 403, code: "bad_origin" },
  {
    name: "own origin on another port",
    headers: { ...AUTH, origin: "http://127.0.0.1:81" },
    status: 403,
    code: "bad_origin",
  },
  { name: "own origin", headers: { ...AUTH, origin: "http://127.0.0.1" }, status: 200 },
  { name: "own origin by name", headers: { ...AUTH, origin: "http://localhost:80" }, status: 200 },
  { name: "an allowed origin", headers: { ...AUTH, origin: "https://app.example" }, status: 200 },
  {
    name: "a foreign Host (DNS rebinding)",
    headers: { ...AUTH, host: "evil.example:80" },
    status: 421,
    code: "bad_host",
  },
  {
    name: "own Host on another port",
    headers: { ...AUTH, host: "127.0.0.1:81" },
    status: 421,
    code: "bad_host",
  },
  {
    name: "Host without a port",
    headers: { ...AUTH, host: "127.0.0.1" },
    status: 421,
    code: "bad_host",
  },
  {
    name: "an allowed Host (a proxy's name)",
    headers: { ...AUTH, host: "chat.example:443" },
    status: 200,
  },
  {
    name: "an allowed Host on another port than allowed",
    headers: { ...AUTH, host: "api.example:8080" },
    status: 421,
    code: "bad_host",
  },
  { name: "Host 127.0.0.1", headers: { ...AUTH, host: "127.0.0.1:80" }, status: 200 },
  { name: "Host [::1]", headers: { ...AUTH, host: "[::1]:80" }, status: 200 },
  {
    name: "a foreign Host, no token: the Host is checked first",
    headers: { host: "evil.example:80" },
    status: 421,
    code: "bad_host",
  },
  {
    name: "a foreign Origin, no token: the Origin before the token",
    headers: { origin: "http://evil.example" },
    status: 403,
    code: "bad_origin",
  },
];

describe("security of every route", () => {
  it.each(CASES)("$name → $status", async ({ headers, status, code }) => {
    const { app } = harness({
      allowOrigins: ["https://app.example"],
      allowHosts: ["chat.example", "api.example:443"],
    });
    const response = await app.inject({ method: "GET", url: "/v1/sessions", headers });
    expect(response.statusCode).toBe(status);
    if (code !== undefined) {
      const body = response.json();
      expect(body.error.code).toBe(code);
      expect(body.error.message.length).toBeGreaterThan(30);
      expect(response.body).not.toMatch(/\bat .*\.ts:\d+/); // no stack
    }
  });

  it("guards unknown routes too: no token → 401, not 404 (the API's shape is not revealed)", async () => {
    const { app } = harness();
    expect((await app.inject({ url: "/v1/nothing-here" })).statusCode).toBe(401);
    const found = await app.inject({ url: "/v1/nothing-here", headers: AUTH });
    expect(found.statusCode).toBe(404);
    expect(found.json().error.code).toBe("not_found");
  });

  it("/healthz needs no token; /metrics and /v1/openapi.json do", async () => {
    const { app } = harness();
    expect((await app.inject({ url: "/healthz" })).json()).toEqual({ ok: true, opencode: "up" });
    expect((await app.inject({ url: "/metrics" })).statusCode).toBe(401);
    expect((await app.inject({ url: "/v1/openapi.json" })).statusCode).toBe(401);
    expect((await app.inject({ url: "/metrics", headers: AUTH })).statusCode).toBe(200);
  });

  it("/healthz checks the Host and Origin all the same (a rebinding page must not probe it)", async () => {
    const { app } = harness();
    const foreignHost = await app.inject({ url: "/healthz", headers: { host: "evil.example" } });
    expect(foreignHost.statusCode).toBe(421);
    expect(foreignHost.json().error.code).toBe("bad_host");
    const foreignOrigin = await app.inject({
      url: "/healthz",
      headers: { origin: "http://evil.example" },
    });
    expect(foreignOrigin.statusCode).toBe(403);
    expect(foreignOrigin.json().error.code).toBe("bad_origin");
  });

  it("answers 503 unavailable once the sidecar is stopping", async () => {
    const made = harness();
    made.stop();
    const response = await made.app.inject({ url: "/v1/sessions", headers: AUTH });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe("unavailable");
  });

  it("outside a cluster, refuses every call marked as another sidecar's, the client's token or not", async () => {
    const { app } = harness();
    const calls = [
      { method: "DELETE", url: "/v1/sessions/ses_any", mark: "x-ocb-forwarded" },
      { method: "GET", url: "/v1/ws", mark: "x-ocb-cluster-relay" },
    ] as const;
    for (const { method, url, mark } of calls) {
      const response = await app.inject({ method, url, headers: { ...AUTH, [mark]: "a" } });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.json().error.message).toContain("this sidecar is in no cluster");
    }
  });

  it("compares tokens whole: only the exact token passes", () => {
    expect(hasToken(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(hasToken(`Bearer  ${TOKEN} `, TOKEN)).toBe(true);
    expect(hasToken(`Bearer ${TOKEN} extra`, TOKEN)).toBe(false);
    expect(hasToken("Bearer", TOKEN)).toBe(false);
    expect(hasToken(undefined, TOKEN)).toBe(false);
  });
});

describe("CORS for the allowed origins", () => {
  it("answers an allowed page's preflight without a token, and lets it read the answers", async () => {
    const { app } = harness({ allowOrigins: ["https://app.example"] });
    const preflight = await app.inject({
      method: "OPTIONS",
      url: "/v1/sessions",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(preflight.headers["access-control-allow-headers"]).toContain("authorization");
    const answer = await app.inject({
      url: "/v1/sessions",
      headers: { ...AUTH, origin: "https://app.example" },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBe("https://app.example");
  });

  it("gives a foreign page neither a preflight nor CORS headers", async () => {
    const { app } = harness({ allowOrigins: ["https://app.example"] });
    const preflight = await app.inject({
      method: "OPTIONS",
      url: "/v1/sessions",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.statusCode).toBe(403);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    const rebound = await app.inject({
      method: "OPTIONS",
      url: "/v1/sessions",
      headers: {
        host: "evil.example:80",
        origin: "https://app.example",
        "access-control-request-method": "POST",
      },
    });
    expect(rebound.statusCode).toBe(421);
    expect(rebound.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("tickets for the stream handshakes", () => {
  /** The security hook over a stand-in stream route (the real ones belong to the streams part). */
  async function ticketApp() {
    const made = harness();
    const app = Fastify();
    app.addHook("onRequest", securityHook(made.ctx));
    app.get("/v1/ws", async () => ({ ok: true }));
    app.get("/v1/sessions", async () => ({ ok: true }));
    await app.ready();
    harnesses.push({
      ...made,
      close: async () => {
        await app.close();
        await made.close();
      },
    });
    const issued = await made.app.inject({ method: "POST", url: "/v1/tickets", headers: AUTH });
    expect(issued.statusCode).toBe(201);
    return { app, ticket: issued.json().ticket as string };
  }

  it("a ticket opens one handshake, once", async () => {
    const { app, ticket } = await ticketApp();
    expect((await app.inject({ url: `/v1/ws?ticket=${ticket}` })).statusCode).toBe(200);
    const again = await app.inject({ url: `/v1/ws?ticket=${ticket}` });
    expect(again.statusCode).toBe(401);
    expect(again.json().error.message).toMatch(/unknown, used or expired/);
  });

  it("a ticket is no token for the other routes", async () => {
    const { app, ticket } = await ticketApp();
    expect((await app.inject({ url: `/v1/sessions?ticket=${ticket}` })).statusCode).toBe(401);
    // Not spent by that attempt: the handshake still works.
    expect((await app.inject({ url: `/v1/ws?ticket=${ticket}` })).statusCode).toBe(200);
  });

  it("a made-up ticket → 401; a ticket from a foreign Origin → 403 and not spent", async () => {
    const { app, ticket } = await ticketApp();
    expect((await app.inject({ url: "/v1/ws?ticket=tkt_made_up" })).statusCode).toBe(401);
    const foreign = await app.inject({
      url: `/v1/ws?ticket=${ticket}`,
      headers: { origin: "http://evil.example" },
    });
    expect(foreign.statusCode).toBe(403);
    expect((await app.inject({ url: `/v1/ws?ticket=${ticket}` })).statusCode).toBe(200);
  });
});

describe("the log", () => {
  it("never holds the token or a ticket, whatever the requests were", async () => {
    const recorded = recordingLogger();
    let text = "";
    const json = lineLogger("json", (line) => {
      text += line;
    });
    const both = {
      debug: () => {},
      info: (message: string, fields?: Record<string, unknown>) => {
        recorded.info(message, fields);
        json.info(message, fields);
      },
      warn: (message: string, fields?: Record<string, unknown>) => {
        recorded.warn(message, fields);
        json.warn(message, fields);
      },
      error: (message: string, fields?: Record<string, unknown>) => {
        recorded.error(message, fields);
        json.error(message, fields);
      },
    };
    const { app } = harness({ logger: both });
    const ticket = (await app.inject({ method: "POST", url: "/v1/tickets", headers: AUTH })).json()
      .ticket as string;
    const requests = [
      { url: "/v1/sessions", headers: AUTH },
      { url: `/v1/sessions?token=${TOKEN}`, headers: {} },
      { url: `/v1/ws?ticket=${ticket}`, headers: {} },
      { url: `/v1/sessions/${TOKEN}`, headers: AUTH },
      { url: "/v1/sessions", headers: { authorization: `Bearer ${TOKEN}x` } },
      { url: "/v1/sessions", headers: { ...AUTH, host: "evil.example:80" } },
    ];
    for (const request of requests) await app.inject(request);
    await app.inject({
      method: "POST",
      url: "/v1/sessions",
      headers: { ...AUTH, "content-type": "application/json" },
      payload: JSON.stringify({ title: TOKEN, directory: `/nowhere/${TOKEN}` }),
    });
    expect(recorded.entries.filter((entry) => entry.message === "request")).toHaveLength(
      requests.length + 2,
    );
    const logged = `${text}\n${JSON.stringify(recorded.entries)}`;
    expect(logged).toContain("/v1/sessions");
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toContain(ticket);
    expect(logged).not.toMatch(/authorization/i);
  });
});
